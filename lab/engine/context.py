"""Compile two decks and a rule set into the matchup context array the kernels read.

Owns the local-id table (each player's distinct card types, A's first, in card-data order), the
per-card flags and masks derived from the ability rows, and the strength lists used to generate
sets. It reads the pool's tables only; it never plays.
"""

from __future__ import annotations

import numpy as np

from lab.cards.pool import CardPool
from lab.cards.vocab import Condition, Effect, Kind, Trigger
from lab.engine.layout import *  # noqa: F403
from lab.errors import LabError
from lab.rules import N_RULES, RuleSet


def local_types(cards_a: list[int], cards_b: list[int]) -> tuple[list[int], list[int]]:
    """Distinct global card types of each side, in card-data order."""
    return sorted(set(cards_a)), sorted(set(cards_b))


def build_context(pool: CardPool, rules: RuleSet, types_a: list[int], types_b: list[int],
                  deck_a: list[int] | None = None, deck_b: list[int] | None = None) -> np.ndarray:
    """The context for one matchup. ``types_*`` are the global card types each side may hold;
    ``deck_*`` (global types, one per copy) are the decks set-up deals from."""
    tables = pool.tables()
    n = len(types_a) + len(types_b)
    if n > NL - 1:
        raise LabError(f"the two sides hold {n} distinct card types; the engine allows "
                       f"{NL - 1} (a deck of 30 holds at most 30)")
    c = np.zeros(C_SIZE, dtype=np.int64)
    c[C_NLOC] = n
    c[C_NLOC_P] = 0
    c[C_NLOC_P + 1] = len(types_a)
    packed = rules.pack()
    assert len(packed) <= 16 and N_RULES <= 16
    c[C_RULES:C_RULES + len(packed)] = packed
    gtypes = list(types_a) + list(types_b)
    origin = [0] * len(types_a) + [1] * len(types_b)
    c[C_SAME:C_SAME + NL] = -1
    for i, (g, o) in enumerate(zip(gtypes, origin)):
        c[C_GTYPE + i] = g
        c[C_ORIGIN + i] = o
        st = int(tables.strength[g])
        c[C_STR + i] = st
        c[C_KIND + i] = int(tables.kind[g])
        c[C_COST + i] = int(tables.cost[g])
        c[C_KEY + i] = st * 1000 - g if st else -1
        rows = tables.rows[g]
        c[C_ROWS + i * 16:C_ROWS + i * 16 + 16] = rows.reshape(-1)
        flags = 0
        kind = int(tables.kind[g])
        if kind in (Kind.UNIT, Kind.WARLORD, Kind.GENERAL):
            flags |= F_UNIT
        if kind == Kind.TACTIC:
            flags |= F_TACTIC
        if kind == Kind.CASTLE:
            flags |= F_CASTLE
        for trig, eff, amt, cond in rows:
            if trig == 0:
                continue
            if trig == Trigger.ON_WIN:
                flags |= F_ON_WIN
                if eff == Effect.WIN_SET_FACE_UP:
                    flags |= F_FACEUP
                if eff == Effect.WALLS_TO_GRAVE:
                    flags |= F_BREAK_GRAVE
            elif trig == Trigger.ON_LEAD:
                flags |= F_ON_LEAD
            elif trig == Trigger.ON_DEATH:
                flags |= F_ON_DEATH
            if eff == Effect.GUN:
                flags |= F_GUN
            elif eff == Effect.ASSASSIN:
                flags |= F_ASSASSIN
            elif eff == Effect.ASSASSIN_IMMUNE:
                flags |= F_IMMUNE
            elif eff == Effect.TENKA_FUBU:
                flags |= F_TENKA
            elif eff == Effect.WHEEL:
                flags |= F_KURUMA
            elif eff == Effect.DECOY:
                flags |= F_DECOY
        c[C_FLAGS + i] = flags
        bit = 1 << i
        if flags & F_UNIT:
            c[C_M_UNIT] |= bit
            c[C_M_STR + st] |= bit
            if st <= 3:
                c[C_M_LOW] |= bit
        if flags & F_TACTIC:
            c[C_M_TACTIC] |= bit
        if flags & F_CASTLE:
            c[C_M_CASTLE] |= bit
        if flags & F_KURUMA:
            c[C_M_KURUMA] |= bit
        if flags & F_DECOY:
            c[C_M_DECOY] |= bit
        if flags & (F_ASSASSIN | F_TENKA) and flags & F_UNIT:
            c[C_M_SPECIAL] |= bit
        if flags & F_ASSASSIN and flags & F_UNIT:
            c[C_M_ASSASSIN] |= bit
        if flags & F_GUN and flags & F_UNIT:
            c[C_M_GUN] |= bit
    for i in range(n):
        for j in range(n):
            if j != i and gtypes[j] == gtypes[i]:
                c[C_SAME + i] = j
    # the ids of strength v each player may ever hold: their own, and the opponent's cards of a
    # type they do not have themselves (a steal of a type they have merges with their own)
    for p in (0, 1):
        for v in range(1, 12):
            ids = [i for i in range(n) if c[C_STR + i] == v and c[C_FLAGS + i] & F_UNIT
                   and (origin[i] == p or c[C_SAME + i] < 0)]
            if len(ids) > SL_CAP:
                raise LabError(f"more than {SL_CAP} card types of strength {v} in one matchup")
            c[C_SL_N + p * 12 + v] = len(ids)
            for k, i in enumerate(ids):
                c[C_SL + (p * 12 + v) * SL_CAP + k] = i
    lid = [{g: i for i, g in enumerate(gtypes) if origin[i] == p} for p in (0, 1)]
    extra = [0, 0]
    for p, deck in enumerate((deck_a, deck_b)):
        if deck is None:
            continue
        if len(deck) > DECK_CAP:
            raise LabError(f"a deck of {len(deck)} cards; the engine holds at most {DECK_CAP}")
        for k, g in enumerate(deck):
            c[C_DECK + p * DECK_CAP + k] = lid[p][g]
        c[C_DECK_N + p] = len(deck)
        for g in set(deck):
            for trig, eff, amt, cond in tables.rows[g]:
                if trig == Trigger.SETUP and eff == Effect.EXTRA_OPENING:
                    extra[p] += int(amt)
    c[C_EXTRA_OPEN] = extra[0]
    c[C_EXTRA_OPEN + 1] = extra[1]
    return c


def matchup_context(pool: CardPool, rules: RuleSet, deck_a, deck_b) -> np.ndarray:
    """Context for two ``Deck``s (set-up will deal from them)."""
    a, b = deck_a.card_indices(), deck_b.card_indices()
    ta, tb = local_types(a, b)
    return build_context(pool, rules, ta, tb, a, b)


_ = (Condition,)  # the kernels read conditions by code; imported for readers of this module
