"""The unit of work a runner dispatches: play one chunk and write its records.

``play_chunk`` runs in whatever process joblib or Dask puts it in: it builds (and caches, per
process) the matchup context, derives the chunk's seed words, plays the games through the compiled
match loop (``lab.bots.match``) and writes the chunk's two Parquet files. It returns only a small
receipt, so no game data crosses process boundaries. It holds no rule and picks no bot.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from lab.bots.match import Batch
from lab.cards.pool import load_pool
from lab.engine.context import matchup_context
from lab.rules import RuleSet
from lab.sim import records
from lab.sim.config import Army
from lab.sim.plan import Job
from lab.sim.seeding import game_seeds


@dataclass(frozen=True)
class Receipt:
    chunk: int
    games: int
    seconds: float  # wall time in the worker, play and write
    errors: int  # games that hit an engine limit (the error flag)
    files: dict  # {kind: {"rows", "sha256"}} of the two files written, for the manifest


@lru_cache(maxsize=256)
def _context(variant: RuleSet, army_a: Army, army_b: Army):
    pool = load_pool()
    decks = (army_a.deck(), army_b.deck())
    return matchup_context(pool, variant, *decks), decks


@lru_cache(maxsize=1)
def _batch() -> Batch:
    return Batch()


def seeds_for(job: Job) -> np.ndarray:
    return game_seeds(job.seed, job.pair, job.seat_a_slot, job.variant.id, job.tier.a.label,
                      job.tier.b.label, job.lo, job.hi)


def play(job: Job, games: int | None = None):
    """Play a chunk's games (or its first ``games``): (seeds, results, stats, context, decks)."""
    ctx, decks = _context(job.variant, job.army_a, job.army_b)
    seeds = seeds_for(job)[:games]
    results, stats = _batch().play(ctx, seeds, job.tier.a, job.tier.b)
    return seeds, results, stats, ctx, decks


def play_chunk(job: Job, out: str) -> Receipt:
    """Play a chunk and write games/ and cards/ chunk files under ``out``."""
    t = time.perf_counter()
    seeds, results, stats, ctx, decks = play(job)
    games = records.games_table(job, seeds, results)
    cards = records.cards_table(job, load_pool(), ctx, decks, stats)
    files = records.write_chunk(Path(out), job.id, games, cards)
    return Receipt(job.id, job.size, time.perf_counter() - t,
                   int(np.count_nonzero(results[:, records.nb_play.RES_ERROR])), files)
