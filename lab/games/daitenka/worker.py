"""The unit of work a runner dispatches: play one chunk and write its records.

``play_chunk`` runs in whatever process joblib or Dask puts it in: it builds (and caches, per
process) the matchup context — from the pool and decks as the job's card patch leaves them
(``lab.games.daitenka.cards.patch``; the engine reads a patched pool like any other) — derives the chunk's seed
words, plays the games through the compiled match loop (``lab.games.daitenka.bots.match``) and writes the chunk's
two Parquet files, and those of its copies (cells whose patch leaves these games unchanged). It
returns only a small receipt, so no game data crosses process boundaries. It holds no rule and
picks no bot.
"""

from __future__ import annotations

import time
from functools import lru_cache
from pathlib import Path

import numpy as np

from lab.games.daitenka.bots.match import Batch
from lab.games.daitenka.cards.patch import Patch
from lab.games.daitenka.engine.context import matchup_context
from lab.games.daitenka.rules import RuleSet
from lab.records import write_chunk
from lab.games.daitenka import records
from lab.games.daitenka.experiment import BASE_PATCH, Army
from lab.games.daitenka.plan import Job
from lab.games.daitenka.seeds import game_seeds
from lab.sim.receipt import Receipt


@lru_cache(maxsize=256)
def _context(variant: RuleSet, army_a: Army, army_b: Army, patch: Patch | None = None):
    """(context, decks, pool) of a matchup under a rule set and a card patch."""
    pool, *decks = (patch or BASE_PATCH).apply(
        ((army_a.key, army_a.deck()), (army_b.key, army_b.deck())), army_a.pool()
    )
    return matchup_context(pool, variant, *decks), tuple(decks), pool


@lru_cache(maxsize=1)
def _batch() -> Batch:
    return Batch()


def seeds_for(job: Job) -> np.ndarray:
    # the rule set's id, not the patch's: every patch of a variant plays on the same play words
    # (common random numbers), so a patch's games differ from base's only through the patch
    return game_seeds(
        job.seed,
        job.pair,
        job.seat_a_slot,
        job.variant.id,
        job.tier.a.label,
        job.tier.b.label,
        job.lo,
        job.hi,
    )


def play(job: Job, games: int | None = None):
    """Play a chunk's games (or its first ``games``): (seeds, results, stats, context, decks,
    pool)."""
    ctx, decks, pool = _context(job.variant, job.army_a, job.army_b, job.patch)
    seeds = seeds_for(job)[:games]
    results, stats = _batch().play(ctx, seeds, job.tier.a, job.tier.b)
    return seeds, results, stats, ctx, decks, pool


def play_chunk(job: Job, out: str) -> Receipt:
    """Play a chunk and write games/ and cards/ chunk files under ``out`` (for the chunk and
    each of its copies)."""
    t = time.perf_counter()
    seeds, results, stats, ctx, decks, pool = play(job)
    outputs = job.outputs()
    files = {}
    for j in outputs:
        games = records.games_table(j, seeds, results)
        cards = records.cards_table(j, pool, ctx, decks, stats)
        files[j.id] = write_chunk(Path(out), j.id, games, cards)
    return Receipt(
        job.id,
        job.size,
        time.perf_counter() - t,
        int(np.count_nonzero(results[:, records.nb_play.RES_ERROR])),
        job.size * len(outputs),
        files,
    )
