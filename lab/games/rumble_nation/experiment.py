"""Rumble Nation experiments: a config with ``game = "rumble_nation"`` resolved into variants ×
bot tiers × deals, planned into chunks, played and written as records — the game's side of the
runner protocol (``lab.games``).

A cell is one (rule variant, bot tier); its games are its deals, each played once, the start
player drawn from the deal (RN2). Seed words come from ``lab.sim.seeding``'s two streams, as for
大天下: the **deal key** (experiment seed, the game) and the deal index give words 0–3 (the token
deal and the start player), so every variant and tier plays deal d on the same layout and with the
same start seat (at a given player count) — the pairing the statistics lean on; the **play key**
(deal key plus rule set id and tier label) gives the dice and bot words 4–11. Records: one row per
game in ``games/`` (docs/records.md, "Rumble Nation"), seats as columns ``_p1`` … ``_p4``.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pyarrow as pa

from lab.errors import did_you_mean, LabError
from lab.games.rumble_nation.batch import Buffers, RNBot, parse_bot, play_batch, record_columns
from lab.games.rumble_nation.nb_layout import MAXP
from lab.games.rumble_nation.rules import DEFAULT, PRESETS, RNRules
from lab.schema.base import check
from lab.schema.experiment import GameExperimentFile
from lab.schema.grid import check_grid, expand_grid

GAME = "rumble_nation"
GAMES = "games"
DEFAULT_BOTS = "heuristic"
TOGGLES = tuple(RNRules().as_dict())


@dataclass(frozen=True)
class Tier:
    """The bots of a cell: one bot for every seat, or one per seat (P1 first)."""

    bots: tuple[RNBot, ...]  # one entry: that bot in every seat

    @property
    def label(self) -> str:
        return "/".join(b.label for b in self.bots)

    def seated(self, players: int) -> tuple[RNBot, ...]:
        return self.bots * players if len(self.bots) == 1 else self.bots


@dataclass(frozen=True)
class Experiment:
    name: str
    source: str
    seed: int
    games: int  # deals per cell
    chunk_size: int
    variants: tuple[RNRules, ...]
    tiers: tuple[Tier, ...]
    game = GAME

    @property
    def n_cells(self) -> int:
        return len(self.variants) * len(self.tiers)

    @property
    def total_games(self) -> int:
        return self.n_cells * self.games

    def resolved(self) -> dict:
        return {
            "game": GAME,
            "name": self.name,
            "source": self.source,
            "seed": self.seed,
            "games": self.games,
            "chunk_size": self.chunk_size,
            "variants": [{"id": v.id, "rules": v.as_dict()} for v in self.variants],
            "tiers": [
                {"label": t.label, "bots": [{"kind": b.kind, **dict(b.params)} for b in t.bots]}
                for t in self.tiers
            ],
        }

    def fingerprint(self) -> str:
        data = {k: v for k, v in self.resolved().items() if k not in ("name", "source")}
        return hashlib.sha256(
            json.dumps(data, sort_keys=True, ensure_ascii=False).encode()
        ).hexdigest()[:16]


@dataclass(frozen=True)
class Job:
    id: int
    cell: int
    variant: RNRules
    tier: Tier
    lo: int
    hi: int
    seed: int
    games: int
    swapped: bool = False  # the runner's plan entry; Rumble Nation plays each deal once
    copies: tuple = ()

    @property
    def size(self) -> int:
        return self.hi - self.lo

    @property
    def chunk_ids(self) -> tuple[int, ...]:
        return (self.id,)

    def outputs(self) -> list["Job"]:
        return [self]

    def game_ids(self) -> np.ndarray:
        return self.cell * self.games + np.arange(self.lo, self.hi, dtype=np.int64)


# ------------------------------------------------------------------------------- loading


def load_experiment(data: dict, src: str, games: int | None = None, cards=()) -> Experiment:
    from lab.sim.config import check_games_option

    f = check(GameExperimentFile, data, src)
    if cards:
        raise LabError(
            "--cards is for 大天下's cards; Rumble Nation has none — drop it", source=src
        )
    if games is not None:
        check_games_option(games)
    variants = _variants(f.rules or [DEFAULT], f.overrides, f.grid, src)
    tiers = _tiers(
        f.tiers if f.tiers is not None else [f.bots or DEFAULT_BOTS],
        "tiers" if f.tiers is not None else "bots",
        variants,
        src,
    )
    return Experiment(
        f.name or Path(src).stem, src, f.seed, games or f.games, f.chunk_size, variants, tiers
    )


def _variants(presets, overrides: dict, grid: dict, src: str) -> tuple[RNRules, ...]:
    for p in presets:
        if p not in PRESETS:
            did = did_you_mean(p, PRESETS)
            raise LabError(
                f"rules: unknown Rumble Nation preset \"{p}\"; {did}presets: {', '.join(PRESETS)}",
                source=src,
            )
    check_grid(grid, overrides, TOGGLES, src, _example)
    return expand_grid(PRESETS, presets, overrides, grid, src)


def _example(key: str) -> str:
    return {
        "reroll": "true, false",
        "second_place": "true, false",
        "daimyo": "true, false",
        "reinforcements": "1, 2",
        "players": "2, 3, 4",
    }.get(key, "…")


def _tiers(entries, key: str, variants, src: str) -> tuple[Tier, ...]:
    if not isinstance(entries, list) or not entries:
        raise LabError(
            f"{key} = {entries!r} is not allowed; allowed values: a list of tiers, "
            "each one bot for every seat (\"heuristic\") or a list with one bot per "
            "seat",
            source=src,
        )
    tiers = []
    for i, e in enumerate(entries):
        where = key if key == "bots" else f"{key}[{i}]"
        if isinstance(e, list):
            bots = tuple(parse_bot(b, source=f"{src} {where}[{k}]") for k, b in enumerate(e))
            for v in variants:
                if len(bots) != v.players:
                    raise LabError(
                        f"{where} names {len(bots)} bots but variant {v.id} seats "
                        f"{v.players}; name one bot per seat, or one bot for every "
                        "seat",
                        source=src,
                    )
        else:
            bots = (parse_bot(e, source=f"{src} {where}"),)
        tiers.append(Tier(bots))
    labels = [t.label for t in tiers]
    for lab in labels:
        if labels.count(lab) > 1:
            raise LabError(f"tiers: the bots {lab} are listed twice", source=src)
    return tuple(tiers)


# -------------------------------------------------------------------------------- planning


def plan(exp: Experiment) -> list[Job]:
    """Every chunk, in id order: variant, then tier, then deals."""
    out: list[Job] = []
    cell = 0
    for v in exp.variants:
        for t in exp.tiers:
            for lo in range(0, exp.games, exp.chunk_size):
                out.append(
                    Job(
                        len(out),
                        cell,
                        v,
                        t,
                        lo,
                        min(lo + exp.chunk_size, exp.games),
                        exp.seed,
                        exp.games,
                    )
                )
            cell += 1
    return out


def seeds_for(job: Job) -> np.ndarray:
    """int64[games, 12]: deal words 0–3 from the deal key (no variant, no bots), dice and bot
    words 4–11 from the play key (lab.sim.seeding's streams)."""
    from lab.sim.seeding import DEAL_STREAM, PLAY_STREAM, stream_words, text_key

    game = text_key(GAME)
    deal = stream_words((job.seed, (DEAL_STREAM, game)), job.lo, job.hi)
    play = stream_words(
        (job.seed, (PLAY_STREAM, game, text_key(job.variant.id), text_key(job.tier.label))),
        job.lo,
        job.hi,
    )
    words = np.concatenate([deal[:, :4], play], axis=1).astype(np.int64)
    for k in (0, 4, 8):  # a generator state of four zero words never leaves zero
        words[~words[:, k : k + 4].any(axis=1), k] = 1
    return words


# --------------------------------------------------------------------------------- playing


@lru_cache(maxsize=1)
def _buffers() -> Buffers:
    return Buffers()


def play(job: Job, games: int | None = None):
    seeds = seeds_for(job)[:games]
    cols = play_batch(job.variant, job.tier.seated(job.variant.players), seeds, buffers=_buffers())
    return seeds, cols


def warm(job: Job) -> None:
    play(job, games=1)


def play_chunk(job: Job, out: str):
    from lab import records
    from lab.sim.receipt import Receipt

    t = time.perf_counter()
    seeds, cols = play(job)
    files = {
        GAMES: records.write_atomic(
            games_table(job, seeds, cols), records.chunk_path(Path(out), GAMES, job.id)
        )
    }
    return Receipt(job.id, job.size, time.perf_counter() - t, 0, job.size, {job.id: files})


# --------------------------------------------------------------------------------- records

_FULL = RNRules(players=MAXP, second_place=True, daimyo=True)
_PA = {"int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32()}
TOGGLE_TYPES = {
    "players": pa.int32(),
    "reroll": pa.bool_(),
    "soldier_counts": pa.string(),
    "reinforcements": pa.int32(),
    "second_place": pa.bool_(),
    "daimyo": pa.bool_(),
    "soldiers": pa.int32(),
    "map": pa.string(),
}
GAMES_SCHEMA = pa.schema(
    [("game_id", pa.int64()), ("cell", pa.int32()), ("variant", pa.string())]
    + list(TOGGLE_TYPES.items())
    + [("tier", pa.string())]
    + [(f"bot_p{k}", pa.string()) for k in range(1, MAXP + 1)]
    + [("deal", pa.int64()), ("seed_words", pa.list_(pa.int64()))]
    + [(name, _PA[dtype]) for name, dtype, _ in record_columns(_FULL)]
)


def schema(kind: str) -> pa.Schema:
    if kind != GAMES:
        raise LabError(f"Rumble Nation records have no {kind} table; they are games/ only")
    return GAMES_SCHEMA


def games_table(job: Job, seeds: np.ndarray, cols: dict) -> pa.Table:
    """One row per game; columns of seats not in play (and of toggles off) are null."""
    n = len(seeds)
    rules = job.variant
    bots = job.tier.seated(rules.players)

    def const(value, type_):
        return pa.repeat(pa.scalar(value, type_), n)

    data = {
        "game_id": pa.array(job.game_ids()[:n]),
        "cell": const(job.cell, pa.int32()),
        "variant": const(rules.id, pa.string()),
    }
    for k, t in TOGGLE_TYPES.items():
        data[k] = const(rules.show(k) if k == "soldier_counts" else getattr(rules, k), t)
    data["tier"] = const(job.tier.label, pa.string())
    for k in range(MAXP):
        data[f"bot_p{k + 1}"] = const(bots[k].label if k < len(bots) else None, pa.string())
    data["deal"] = pa.array(np.arange(job.lo, job.lo + n, dtype=np.int64))
    data["seed_words"] = pa.FixedSizeListArray.from_arrays(
        pa.array(seeds.reshape(-1)), seeds.shape[1]
    ).cast(pa.list_(pa.int64()))
    for f in GAMES_SCHEMA:
        if f.name in data:
            continue
        data[f.name] = pa.array(cols[f.name], f.type) if f.name in cols else pa.nulls(n, f.type)
    return pa.Table.from_pydict(data, schema=GAMES_SCHEMA)


# ---------------------------------------------------------------------------------- replay


@dataclass
class Replay:
    game: object  # the finished facade game (log_lines, summary)
    record: dict  # the games row
    mismatches: list[str]

    @property
    def reproduced(self) -> bool:
        return not self.mismatches


def replay(out, game_id: int) -> Replay:
    """Play a recorded game again from its row (rule set from its variant in the manifest, bots
    from its tier, its seed words) and compare the scores, ranks and winner with the record."""
    from lab.games.rumble_nation.batch import finish
    from lab.games.rumble_nation.game import new_game
    from lab.records import read_record

    man, row = read_record(out, game_id)
    variants = {v["id"]: v["rules"] for v in man["config"].get("variants", [])}
    tiers = {t["label"]: t["bots"] for t in man["config"].get("tiers", [])}
    if row["variant"] not in variants or row["tier"] not in tiers:
        raise LabError(
            f"game {game_id}: its variant or tier is not in the manifest; the folder was edited",
            source=str(out),
        )
    raw = dict(variants[row["variant"]])
    raw["soldier_counts"] = tuple(raw["soldier_counts"])
    rules = RNRules(**raw)
    tier = Tier(tuple(parse_bot(b) for b in tiers[row["tier"]]))
    g = finish(new_game(rules, np.asarray(row["seed_words"], np.int64)), tier.seated(rules.players))
    r = g.result()
    mismatches = []
    names = g.seats
    for k, seat in enumerate(names, 1):
        for key, got in (("score", r["scores"][seat]), ("rank", r["ranks"][seat])):
            want = row[f"{key}_p{k}"]
            if want != got:
                mismatches.append(f"{key}_p{k}: recorded {want}, replayed {got}")
    if row["winner"] != names.index(r["winner"]) + 1:
        mismatches.append(f"winner: recorded P{row['winner']}, replayed {r['winner']}")
    return Replay(g, row, mismatches)
