"""Batches of Rumble Nation games for given bots, and the columns they give per game.

Owns: bot specs (names and parameters → the kernels' int rows), ``play_batch`` (seed words in,
one numpy array per record column out, through the compiled loop of ``nb_batch``), and
``record_columns`` (name, dtype and meaning of each column for a rule set). It writes no file and
knows nothing of runs, seeds schemes or statistics.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lab.errors import LabError
from lab.games.rumble_nation import nb_batch
from lab.games.rumble_nation.board import AREAS
from lab.games.rumble_nation.game import SEAT_NAMES, Game, _seat_number
from lab.games.rumble_nation.nb_bots import W_SIZE
from lab.games.rumble_nation import nb_layout as L
from lab.games.rumble_nation.rules import RNRules

KINDS = {"random": L.BOT_RANDOM, "heuristic": L.BOT_HEURISTIC, "search": L.BOT_SEARCH}
# Parameters by bot kind: name → (spec offset, default, lowest, highest, meaning).
HEURISTIC_PARAMS = {
    "lookahead": (
        L.BP_LOOKAHEAD,
        1,
        0,
        1,
        "1: reroll when a fresh roll's expected best placement beats the best one on the table",
    ),
    "uncertainty": (
        L.BP_UNCERTAIN,
        35,
        0,
        1000,
        "blur of a power margin per √(meeples in stock), ×100",
    ),
    "reroll_edge": (L.BP_REROLL_EDGE, 0, 0, 10_000, "a reroll must gain this much value, ×100"),
}
SEARCH_PARAMS = HEURISTIC_PARAMS | {
    "simulations": (L.BP_SIMS, 64, 1, 100_000, "playouts per legal decision"),
    "playout_lookahead": (
        L.BP_PLAYOUT_LOOKAHEAD,
        0,
        0,
        1,
        "1: playouts weigh rerolls too (slower)",
    ),
}
PARAMS = {"random": {}, "heuristic": HEURISTIC_PARAMS, "search": SEARCH_PARAMS}


@dataclass(frozen=True)
class RNBot:
    kind: str = "random"
    params: tuple = field(default_factory=tuple)  # (name, value) pairs given in the spec

    @property
    def label(self) -> str:
        if not self.params:
            return self.kind
        return self.kind + "(" + ",".join(f"{k}={v}" for k, v in self.params) + ")"

    def pack(self) -> np.ndarray:
        a = np.zeros(L.BP_SIZE, np.int64)
        a[L.BP_KIND] = KINDS[self.kind]
        given = dict(self.params)
        for name, (at, default, *_rest) in PARAMS[self.kind].items():
            a[at] = given.get(name, default)
        return a


def parse_bot(spec, source: str | None = None) -> RNBot:
    """A bot named in a config: "random", "heuristic", "search", or a table such as
    { kind = "search", simulations = 64 }."""
    if isinstance(spec, RNBot):
        return spec
    if isinstance(spec, str):
        spec = {"kind": spec}
    if not isinstance(spec, dict) or spec.get("kind") not in KINDS:
        raise LabError(
            f"a Rumble Nation bot is one of {', '.join(KINDS)} or a table with "
            f"`kind`; got {spec!r}",
            source=source,
        )
    kind = spec["kind"]
    allowed = PARAMS[kind]
    for key, value in spec.items():
        if key == "kind":
            continue
        if key not in allowed:
            raise LabError(
                f"bot \"{kind}\": unknown parameter \"{key}\"; allowed: "
                f"{', '.join(allowed) or 'none'}",
                source=source,
            )
        _, _, lo, hi, _ = allowed[key]
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise LabError(
                f"bot \"{kind}\": {key} = {value!r} must be a whole number {lo}–{hi}", source=source
            )
    return RNBot(kind, tuple(sorted((k, v) for k, v in spec.items() if k != "kind")))


class Buffers:
    """The work arrays one worker reuses for every batch (nothing is allocated per game)."""

    def __init__(self):
        self.s = np.zeros(L.S_SIZE, np.int64)
        self.acts = np.zeros(L.NACT, np.int64)
        self.wf = np.zeros(W_SIZE, np.float64)
        self.ts = np.zeros(L.S_SIZE, np.int64)
        self.tot = np.zeros(L.NACT, np.int64)
        self.pacts = np.zeros(L.NACT, np.int64)


def pack_bots(rules: RNRules, bots) -> np.ndarray:
    if len(bots) != rules.players:
        raise LabError(f"{len(bots)} bots for {rules.players} seats; name one bot per seat")
    out = np.zeros((L.MAXP, L.BP_SIZE), np.int64)
    for p, b in enumerate(bots):
        out[p] = parse_bot(b).pack()
    return out


def play_rows(
    rules: RNRules,
    bots,
    words: np.ndarray,
    first_seat: int | str | None = None,
    buffers: Buffers | None = None,
) -> np.ndarray:
    """The raw result rows (``nb_layout`` R_* offsets), one per seed-word row."""
    b = buffers or Buffers()
    words = np.ascontiguousarray(words, dtype=np.int64)
    if words.ndim != 2 or words.shape[1] != 12:
        raise ValueError(f"seed words: expected shape (games, 12), got {words.shape}")
    for k in (0, 4, 8):  # xoshiro must not start from four zero words (as seed_words ensures)
        dead = ~words[:, k : k + 4].any(axis=1)
        if dead.any():
            words = words.copy()
            words[dead, k] = 1
    rows = np.zeros((len(words), L.N_RES), np.int32)
    first = _seat_number(first_seat, rules)
    nb_batch.run_batch(
        b.s,
        rules.context(),
        words,
        first,
        pack_bots(rules, bots),
        b.acts,
        b.wf,
        b.ts,
        b.tot,
        b.pacts,
        rows,
    )
    return rows


def play_batch(
    rules: RNRules,
    bots,
    seed_words_array,
    first_seat: int | str | None = None,
    buffers: Buffers | None = None,
) -> dict[str, np.ndarray]:
    """Play one game per row of 12 seed words with ``bots[p]`` in seat p (``bots[0]`` is P1;
    the start player is drawn from the words unless ``first_seat`` — 0-based or "P2" — is
    given); one array per ``record_columns``."""
    rows = play_rows(rules, bots, seed_words_array, first_seat, buffers)
    return columns(rules, rows)


def columns(rules: RNRules, rows: np.ndarray) -> dict[str, np.ndarray]:
    """Record columns from result rows. Seats are numbered 1…N as P1…PN; 0 = nobody."""
    n = rules.players
    out = {}
    seat = lambda col: col + 1  # noqa: E731 - -1 (nobody) becomes 0
    out["first"] = seat(rows[:, L.R_FIRST]).astype(np.int8)
    out["winner"] = seat(rows[:, L.R_WINNER]).astype(np.int8)
    for key, r in (("turns", L.R_TURNS), ("rolls", L.R_ROLLS), ("decisions", L.R_DECISIONS)):
        out[key] = rows[:, r].astype(np.int16)
    for p in range(n):
        k = p + 1
        for key, f in _SEAT_FIELDS:
            if key == "daimyo" and not rules.daimyo:
                continue
            out[f"{key}_p{k}"] = rows[:, L.R_SEAT + f * L.MAXP + p].astype(_dtype(key))
    for t in range(L.NA):
        v = t + 2
        out[f"area_{v}"] = rows[:, L.R_TOKEN + L.RT_AREA * L.NA + t].astype(np.int8)
        out[f"large_{v}"] = seat(rows[:, L.R_TOKEN + L.RT_LARGE * L.NA + t]).astype(np.int8)
        if rules.second_place:
            out[f"small_{v}"] = seat(rows[:, L.R_TOKEN + L.RT_SMALL * L.NA + t]).astype(np.int8)
        out[f"present_{v}"] = rows[:, L.R_TOKEN + L.RT_PRESENT * L.NA + t].astype(np.int8)
        out[f"power_{v}"] = rows[:, L.R_TOKEN + L.RT_POWER * L.NA + t].astype(np.int16)
    return {name: out[name] for name, _, _ in record_columns(rules)}


_SEAT_FIELDS = (
    ("score", L.RS_SCORE),
    ("rank", L.RS_RANK),
    ("chip", L.RS_CHIP),
    ("rerolls", L.RS_REROLLS),
    ("turns", L.RS_TURNS),
    ("large", L.RS_LARGE),
    ("small", L.RS_SMALL),
    ("reinforcements", L.RS_REINF),
    ("daimyo", L.RS_DAIMYO),
)
_SEAT_MEANING = {
    "score": "tokens taken, summed (RN5)",
    "rank": "1 = winner; ties of score go to the bigger sword chip (RN5)",
    "chip": "sword chip taken when the stock emptied (swords; N = first to empty)",
    "rerolls": "rerolls taken (RN3.1)",
    "turns": "placement turns",
    "large": "large tokens taken",
    "small": "small tokens taken (runner-up, RN4.2)",
    "reinforcements": "reinforcement meeples received (RN4.3)",
    "daimyo": "token number of the area where the daimyo stood (RN6)",
}


def _dtype(key: str):
    return np.int8 if key in ("rank", "chip", "large", "small", "daimyo") else np.int16


def record_columns(rules: RNRules) -> list[tuple[str, str, str]]:
    """(name, numpy dtype, meaning) of every column ``play_batch`` returns for this rule set, in
    order: game, then per seat (suffix _p1…_pN), then per token number 2…12."""
    cols = [
        ("first", "int8", "start player, seat number 1…N (P1…)"),
        ("winner", "int8", "winning seat number 1…N"),
        ("turns", "int16", "placement turns, all seats"),
        ("rolls", "int16", "rolls, rerolls included"),
        ("decisions", "int16", "placements and rerolls"),
    ]
    for p in range(rules.players):
        for key, _ in _SEAT_FIELDS:
            if key == "daimyo" and not rules.daimyo:
                continue
            cols.append(
                (f"{key}_p{p + 1}", np.dtype(_dtype(key)).name, f"P{p + 1}: {_SEAT_MEANING[key]}")
            )
    for v in range(2, 13):
        cols.append(
            (
                f"area_{v}",
                "int8",
                f"area holding token {v}: index into AREAS "
                f"({', '.join(f'{i}={a}' for i, a in enumerate(AREAS))})"
                if v == 2
                else f"area holding token {v} (index into AREAS)",
            )
        )
        cols.append((f"large_{v}", "int8", f"seat that took token {v}; 0 = set aside"))
        if rules.second_place:
            cols.append(
                (
                    f"small_{v}",
                    "int8",
                    f"seat that took the small token of {v} (worth {v // 2}); 0 = nobody",
                )
            )
        cols.append((f"present_{v}", "int8", f"seats with meeples in the area of token {v}"))
        cols.append((f"power_{v}", "int16", "the winner's power there; 0 = set aside"))
    return cols


def frame(rules: RNRules, cols: dict[str, np.ndarray]):
    """The columns as a pandas DataFrame, area columns as categoricals of the castle names."""
    import pandas as pd

    df = pd.DataFrame(cols)
    for v in range(2, 13):
        df[f"area_{v}"] = pd.Categorical.from_codes(df[f"area_{v}"], categories=list(AREAS))
    return df


def finish(game: Game, bots, buffers: Buffers | None = None) -> Game:
    """Play a facade game to its end with compiled bots (the loop batches use)."""
    b = buffers or Buffers()
    nb_batch.play_game(
        game.s, game.c, pack_bots(game.rules, bots), b.acts, b.wf, b.ts, b.tot, b.pacts
    )
    return game


def seeds_for(n: int, seed: int = 0) -> np.ndarray:
    """``n`` rows of seed words drawn from one int seed (tests, ladders, benchmarks; the runner
    derives its own per game)."""
    return np.random.default_rng(seed).integers(1, 2**32, size=(n, 12)).astype(np.int64)


__all__ = [
    "RNBot",
    "parse_bot",
    "play_batch",
    "record_columns",
    "columns",
    "frame",
    "finish",
    "seeds_for",
    "Buffers",
    "SEAT_NAMES",
]
