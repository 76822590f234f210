"""Compile two decks and a rule set into the matchup context array the kernels read.

Owns the local-id table (each player's distinct card types, A's first, in card-data order), the
per-card flags and masks derived from the ability rows, and the strength lists used to generate
sets. It reads the pool's tables only; it never plays.
"""

from __future__ import annotations

import numpy as np

from lab.games.daitenka.cards.pool import CardPool
from lab.games.daitenka.cards.vocab import Effect, Kind, Trigger
from lab.games.daitenka.engine import layout as L
from lab.errors import LabError
from lab.games.daitenka.rules import FORTIFY_COST, N_RULES, RuleSet

CARD_ROWS = L.ROWS_PER_CARD * L.ROW_W


def resolve_rows(rows: np.ndarray, rules: RuleSet) -> np.ndarray:
    """A card's rows as the kernels read them: 小田原城's 総構え becomes what the `odawara`
    toggle makes it (rules.md R11) — the only place the toggle is applied."""
    rows = rows.copy()
    for r in rows:
        if r[0] == Trigger.STANDING and r[1] == Effect.ODAWARA:
            if rules.odawara == "fortify":
                r[1], r[2] = Effect.ODAWARA_FORTIFY, FORTIFY_COST
            else:
                r[1] = Effect.ODAWARA_DRAW
    return rows


def local_types(cards_a: list[int], cards_b: list[int]) -> tuple[list[int], list[int]]:
    """Distinct global card types of each side, in card-data order."""
    return sorted(set(cards_a)), sorted(set(cards_b))


def build_context(
    pool: CardPool,
    rules: RuleSet,
    types_a: list[int],
    types_b: list[int],
    deck_a: list[int] | None = None,
    deck_b: list[int] | None = None,
) -> np.ndarray:
    """The context for one matchup. ``types_*`` are the global card types each side may hold;
    ``deck_*`` (global types, one per copy) are the decks set-up deals from."""
    tables = pool.tables()
    n = len(types_a) + len(types_b)
    if n > L.NL - 1:
        raise LabError(
            f"the two sides hold {n} distinct card types; the engine allows "
            f"{L.NL - 1} (a deck of 30 holds at most 30)"
        )
    c = np.zeros(L.C_SIZE, dtype=np.int64)
    c[L.C_NLOC] = n
    c[L.C_NLOC_P] = 0
    c[L.C_NLOC_P + 1] = len(types_a)
    packed = rules.pack()
    assert len(packed) <= 16 and N_RULES <= 16
    c[L.C_RULES : L.C_RULES + len(packed)] = packed
    gtypes = list(types_a) + list(types_b)
    origin = [0] * len(types_a) + [1] * len(types_b)
    c[L.C_SAME : L.C_SAME + L.NL] = -1
    for i, (g, o) in enumerate(zip(gtypes, origin)):
        c[L.C_GTYPE + i] = g
        c[L.C_ORIGIN + i] = o
        st = int(tables.strength[g])
        c[L.C_STR + i] = st
        c[L.C_KIND + i] = int(tables.kind[g])
        c[L.C_COST + i] = int(tables.cost[g])
        c[L.C_KEY + i] = st * 1000 - g if st else -1
        rows = resolve_rows(tables.rows[g], rules)
        c[L.C_ROWS + i * CARD_ROWS : L.C_ROWS + (i + 1) * CARD_ROWS] = rows.reshape(-1)
        flags = 0
        kind = int(tables.kind[g])
        if kind in (Kind.UNIT, Kind.WARLORD, Kind.GENERAL):
            flags |= L.F_UNIT
        if kind == Kind.TACTIC:
            flags |= L.F_TACTIC
        if kind == Kind.CASTLE:
            flags |= L.F_CASTLE
        for trig, eff, amt, cond in rows:
            if trig == 0:
                continue
            if trig == Trigger.ON_WIN:
                flags |= L.F_ON_WIN
                if eff == Effect.WIN_SET_FACE_UP:
                    flags |= L.F_FACEUP
                if eff == Effect.WALLS_TO_GRAVE:
                    flags |= L.F_BREAK_GRAVE
            elif trig == Trigger.ON_LEAD:
                flags |= L.F_ON_LEAD
            elif trig == Trigger.ON_DEATH:
                flags |= L.F_ON_DEATH
            if eff == Effect.GUN:
                flags |= L.F_GUN
            elif eff == Effect.ASSASSIN:
                flags |= L.F_ASSASSIN
            elif eff == Effect.ASSASSIN_IMMUNE:
                flags |= L.F_IMMUNE
            elif eff == Effect.TENKA_FUBU:
                flags |= L.F_TENKA
            elif eff == Effect.KURUMAGAKARI:
                flags |= L.F_KURUMAGAKARI
            elif eff == Effect.DECOY:
                flags |= L.F_DECOY
        c[L.C_FLAGS + i] = flags
        bit = 1 << i
        if flags & L.F_UNIT:
            c[L.C_M_UNIT] |= bit
            c[L.C_M_STR + st] |= bit
            if st <= 3:
                c[L.C_M_LOW] |= bit
        if flags & L.F_TACTIC:
            c[L.C_M_TACTIC] |= bit
        if flags & L.F_CASTLE:
            c[L.C_M_CASTLE] |= bit
        if flags & L.F_KURUMAGAKARI:
            c[L.C_M_KURUMAGAKARI] |= bit
        if flags & L.F_DECOY:
            c[L.C_M_DECOY] |= bit
        if flags & (L.F_ASSASSIN | L.F_TENKA) and flags & L.F_UNIT:
            c[L.C_M_SPECIAL] |= bit
        if flags & L.F_ASSASSIN and flags & L.F_UNIT:
            c[L.C_M_ASSASSIN] |= bit
        if flags & L.F_GUN and flags & L.F_UNIT:
            c[L.C_M_GUN] |= bit
    for i in range(n):
        for j in range(n):
            if j != i and gtypes[j] == gtypes[i]:
                c[L.C_SAME + i] = j
    # the ids of strength v each player may ever hold: their own, and the opponent's cards of a
    # type they do not have themselves (a steal of a type they have merges with their own)
    for p in (0, 1):
        for v in range(1, L.N_STR):
            ids = [
                i
                for i in range(n)
                if c[L.C_STR + i] == v
                and c[L.C_FLAGS + i] & L.F_UNIT
                and (origin[i] == p or c[L.C_SAME + i] < 0)
            ]
            if len(ids) > L.SL_CAP:
                raise LabError(f"more than {L.SL_CAP} card types of strength {v} in one matchup")
            row = p * L.N_STR + v  # [seat][strength]
            c[L.C_SL_N + row] = len(ids)
            for k, i in enumerate(ids):
                c[L.C_SL + row * L.SL_CAP + k] = i
    lid = [{g: i for i, g in enumerate(gtypes) if origin[i] == p} for p in (0, 1)]
    extra = [0, 0]
    for p, deck in enumerate((deck_a, deck_b)):
        if deck is None:
            continue
        if len(deck) > L.DECK_CAP:
            raise LabError(f"a deck of {len(deck)} cards; the engine holds at most {L.DECK_CAP}")
        for k, g in enumerate(deck):
            c[L.C_DECK + p * L.DECK_CAP + k] = lid[p][g]
        c[L.C_DECK_N + p] = len(deck)
        for g in set(deck):
            for trig, eff, amt, cond in tables.rows[g]:
                if trig == Trigger.SETUP and eff == Effect.EXTRA_OPENING:
                    extra[p] += int(amt)
    c[L.C_EXTRA_OPEN] = extra[0]
    c[L.C_EXTRA_OPEN + 1] = extra[1]
    return c


def matchup_context(pool: CardPool, rules: RuleSet, deck_a, deck_b) -> np.ndarray:
    """Context for two ``Deck``s (set-up will deal from them)."""
    a, b = deck_a.card_indices(), deck_b.card_indices()
    ta, tb = local_types(a, b)
    return build_context(pool, rules, ta, tb, a, b)
