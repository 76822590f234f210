"""大天下's game and card records (docs/records.md): the schemas and the Arrow tables of a chunk.

Owns the record schema and turns engine arrays into columns with numpy and pyarrow compute; it
plays nothing. Writing and reading the files is ``lab.records``'.
"""

from __future__ import annotations

import json
from dataclasses import fields

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from lab.games.daitenka.cards.pool import CardPool, Deck
from lab.games.daitenka.engine import layout, nb_play
from lab.games.daitenka.engine.layout import (
    C_GTYPE,
    C_NLOC,
    C_ORIGIN,
    END_NAMES,
    ST_DIED,
    ST_DRAWN,
    ST_FIRST_DRAW,
    ST_GAINED,
    ST_OPENING,
    ST_PLAYED,
    ST_STOLEN,
    ST_TRIG,
    ST_WON,
)
from lab.games.daitenka.engine.triggers import ability_rows
from lab.records import CARDS, GAMES  # noqa: F401  (the table names its schemas are for)
from lab.games.daitenka.rules import RuleSet

SEATS = ("A", "B")
WINNERS = ("A", "B", "draw")

# behaviour counters per seat (lab.games.daitenka.engine.layout CNT_*): column stem → counter index
COUNTERS = {
    name[4:].lower(): getattr(layout, name) for name in dir(layout) if name.startswith("CNT_")
}
_ARROW_TYPES = {int: pa.int32(), bool: pa.bool_(), str: pa.string()}
TOGGLE_TYPES = {f.name: _ARROW_TYPES[type(getattr(RuleSet(), f.name))] for f in fields(RuleSet)}

GAMES_SCHEMA = pa.schema(
    [
        ("game_id", pa.int64()),
        ("cell", pa.int32()),
        ("variant", pa.string()),
        ("patch", pa.string()),
    ]
    + list(TOGGLE_TYPES.items())
    + [
        (k, pa.string())
        for k in ("army_a", "army_b", "army_a_name", "army_b_name", "bot_a", "bot_b", "tier")
    ]
    + [("deal", pa.int64()), ("swapped", pa.bool_())]
    + [(k, pa.string()) for k in ("first", "winner", "winner_army", "end_reason")]
    + [
        (k, pa.int32())
        for k in (
            "leader_turns",
            "battles",
            "decisions",
            "walls_a",
            "walls_b",
            "deck_a",
            "deck_b",
            "max_deficit_a",
            "max_deficit_b",
        )
    ]
    + [("seed_words", pa.list_(pa.int64())), ("error", pa.bool_())]
    + [(f"{k}_{seat}", pa.int32()) for k in sorted(COUNTERS, key=COUNTERS.get) for seat in "ab"]
)

CARDS_SCHEMA = pa.schema(
    [
        ("game_id", pa.int64()),
        ("player", pa.string()),
        ("army", pa.string()),
        ("card", pa.string()),
        ("card_id", pa.string()),
        ("copies", pa.int16()),
    ]
    + [
        ("opening", pa.int16()),
        ("drawn", pa.int16()),
        ("first_draw_turn", pa.int32()),
        ("gained", pa.int16()),
        ("played", pa.int16()),
        ("won", pa.int16()),
        ("triggers", pa.int16()),
        ("triggers_by_ability", pa.string()),
        ("died", pa.int16()),
        ("stolen", pa.int16()),
    ]
)

_R = nb_play


# ------------------------------------------------------------------------------ building tables


def games_table(job, seeds: np.ndarray, results: np.ndarray) -> pa.Table:
    """One row per game of a chunk (``job``: a ``lab.games.daitenka.plan.Job``)."""
    n = len(results)
    deals = np.arange(job.lo, job.hi, dtype=np.int64)
    armies = np.array([job.army_a.key, job.army_b.key, ""], dtype=object)
    winner = results[:, _R.RES_WINNER]
    rules = job.variant.as_dict()

    def const(value, type_):
        return pa.repeat(pa.scalar(value, type_), n)

    def pick(labels, codes):
        return pc.take(pa.array(list(labels), pa.string()), pa.array(codes))

    def i32(col):
        return pa.array(results[:, col].astype(np.int32))

    cols = {
        "game_id": pa.array(job.game_id(deals)),
        "cell": const(job.cell, pa.int32()),
        "variant": const(job.variant_id, pa.string()),
        "patch": const(job.patch.name, pa.string()),
        **{k: const(rules[k], t) for k, t in TOGGLE_TYPES.items()},
        "army_a": const(job.army_a.key, pa.string()),
        "army_b": const(job.army_b.key, pa.string()),
        "army_a_name": const(job.army_a.name, pa.string()),
        "army_b_name": const(job.army_b.name, pa.string()),
        "bot_a": const(job.tier.a.label, pa.string()),
        "bot_b": const(job.tier.b.label, pa.string()),
        "tier": const(job.tier.label, pa.string()),
        "deal": pa.array(deals),
        "swapped": const(job.swapped, pa.bool_()),
        "first": pick(SEATS, results[:, _R.RES_FIRST]),
        "winner": pick(WINNERS, winner),
        "winner_army": pick(armies, winner),
        "end_reason": pick(END_NAMES, results[:, _R.RES_END]),
        "leader_turns": i32(_R.RES_TURNS),
        "battles": i32(_R.RES_BATTLES),
        "decisions": i32(_R.RES_DECISIONS),
        "walls_a": i32(_R.RES_WALLS_A),
        "walls_b": i32(_R.RES_WALLS_B),
        "deck_a": i32(_R.RES_DECK_A),
        "deck_b": i32(_R.RES_DECK_B),
        "max_deficit_a": i32(_R.RES_DEFICIT_A),
        "max_deficit_b": i32(_R.RES_DEFICIT_B),
        "seed_words": pa.FixedSizeListArray.from_arrays(
            pa.array(seeds.reshape(-1)), seeds.shape[1]
        ).cast(pa.list_(pa.int64())),
        "error": pa.array(results[:, _R.RES_ERROR] != 0),
    }
    for k, i in COUNTERS.items():
        for p, seat in enumerate("ab"):
            cols[f"{k}_{seat}"] = i32(_R.RES_CNT + p * layout.N_CNT + i)
    return pa.Table.from_pydict(cols, schema=GAMES_SCHEMA)


def cards_table(
    job, pool: CardPool, ctx: np.ndarray, decks: tuple[Deck, Deck], stats: np.ndarray
) -> pa.Table:
    """One row per game × player × card type in that player's deck (statistics per local id:
    a local id's seat and card type come from the matchup context)."""
    n = len(stats)
    nloc = int(ctx[C_NLOC])
    gtype = ctx[C_GTYPE : C_GTYPE + nloc]
    origin = ctx[C_ORIGIN : C_ORIGIN + nloc]
    cards = [pool.cards[int(g)] for g in gtype]
    counts = [np.bincount(d.card_indices(), minlength=len(pool.cards)) for d in decks]
    copies = np.array([counts[o][g] for g, o in zip(gtype, origin)], dtype=np.int16)
    st = stats[:, :, :nloc]
    local = pa.array(np.tile(np.arange(nloc), n))

    def per_local(values, type_=pa.string()):
        return pc.take(pa.array(values, type_), local)

    def count(row, type_=np.int16):
        return pa.array(st[:, row, :].reshape(-1).astype(type_))

    trig_rows = st[:, ST_TRIG : ST_TRIG + 4, :]  # [game, effect row, local id]
    cols = {
        "game_id": pa.array(np.repeat(job.game_id(np.arange(job.lo, job.hi)), nloc)),
        "player": per_local([SEATS[o] for o in origin]),
        "army": per_local([(job.army_a, job.army_b)[o].key for o in origin]),
        "card": per_local([c.name for c in cards]),
        "card_id": per_local([c.id for c in cards]),
        "copies": pa.array(np.tile(copies, n)),
        "opening": count(ST_OPENING),
        "drawn": count(ST_DRAWN),
        "first_draw_turn": count(ST_FIRST_DRAW, np.int32),
        "gained": count(ST_GAINED),
        "played": count(ST_PLAYED),
        "won": count(ST_WON),
        "triggers": pa.array(trig_rows.sum(axis=1).reshape(-1).astype(np.int16)),
        "triggers_by_ability": _by_ability(cards, trig_rows, n, nloc),
        "died": count(ST_DIED),
        "stolen": count(ST_STOLEN),
    }
    return pa.Table.from_pydict(cols, schema=CARDS_SCHEMA)


def _by_ability(cards, trig_rows: np.ndarray, n: int, nloc: int) -> pa.Array:
    """JSON {ability id: triggers} for cards with two or more abilities, else ""."""
    pieces = [pa.array([""])]
    index = np.zeros((n, nloc), dtype=np.int64)
    offset = 1
    for i, card in enumerate(cards):
        if len(card.abilities) < 2:
            continue
        rows = ability_rows(card)
        parts = []
        for k, a in enumerate(card.abilities):
            mine = [r for r, aid in enumerate(rows) if aid == a.id]
            total = trig_rows[:, mine, i].sum(axis=1)
            parts += [
                ("{" if k == 0 else ", ") + json.dumps(a.id) + ": ",
                pc.cast(pa.array(total), pa.string()),
            ]
        pieces.append(pc.binary_join_element_wise(*parts, "}", ""))
        index[:, i] = offset + np.arange(n)
        offset += n
    return pc.take(pa.concat_arrays(pieces), pa.array(index.reshape(-1)))
