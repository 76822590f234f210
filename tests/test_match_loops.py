"""The compiled match loops (lab.games.daitenka.bots.match.loop_of): each run plays in the loop that
reaches only its bots' kernels, so a cold start compiles no more than it needs (issue 28 item
5) — and any loop that can play two bots plays them the same games."""

import numpy as np
import pytest

from lab.games.daitenka.bots import compile as C
from lab.games.daitenka.bots import nb_match
from lab.games.daitenka.bots.match import Batch, loop_of, parse_bot
from lab.games.daitenka.cards.pool import load_armies, load_pool
from lab.games.daitenka.engine.context import matchup_context
from lab.games.daitenka.engine.layout import N_ST, NL
from lab.games.daitenka.engine.nb_play import N_RES, RES_WINNER
from lab.games.daitenka.rules import RuleSet


@pytest.mark.parametrize(
    "a, b, loop",
    [
        ("tuned", "heuristic", "heuristic"),
        ("aggressive", "defensive", "heuristic"),
        ("random", "tuned", "basic"),
        ("random", "random", "basic"),
        ("strong", "tuned", "search"),
        ({"kind": "search", "simulations": 5}, "random", "search"),
    ],
)
def test_each_pair_of_bots_plays_in_the_smallest_loop_that_holds_both(a, b, loop):
    assert loop_of(parse_bot(a), parse_bot(b)) == loop


def _play(kernel, ctx, seeds, a, b):
    """Results and card statistics of one compiled batch loop (as Batch.play calls it)."""
    batch = Batch()
    results = np.zeros((len(seeds), N_RES), np.int64)
    stats = np.zeros((len(seeds), N_ST * NL), np.int32)
    bots = np.stack([parse_bot(a).pack(), parse_bot(b).pack()])
    args = (batch.s, ctx, batch.lg, batch.acts, batch.wk, seeds, bots, batch.sb, batch.sacts)
    kernel(*args, results, stats)
    return results, stats


@pytest.mark.parametrize("kernel", ["run_batch_basic", "run_batch"])
def test_the_heuristic_loop_plays_the_games_the_other_loops_play(kernel):
    """The same seeds, heuristic seats: identical results and card statistics, game by game."""
    pool = load_pool()
    armies = load_armies(pool)
    ctx = matchup_context(pool, RuleSet(), armies[1], armies[6])
    seeds = np.random.default_rng(3).integers(1, 2**32, size=(40, 12)).astype(np.int64)
    mine = _play(nb_match.run_batch_heuristic, ctx, seeds, "tuned", "aggressive")
    other = _play(getattr(nb_match, kernel), ctx, seeds, "tuned", "aggressive")
    assert np.array_equal(mine[0], other[0]) and np.array_equal(mine[1], other[1])
    assert len(set(mine[0][:, RES_WINNER].tolist())) > 1  # both seats won some: real games


def _groups_spawned(monkeypatch, loop, also=()):
    """The compile groups ensure_compiled starts, in order, on an empty cache with 2 cores."""
    spawned = []

    class Done:
        returncode = 0

        def communicate(self):
            return "", ""

    monkeypatch.setattr(C, "is_cached", lambda name: False)
    monkeypatch.setattr(C, "compile_kernel", lambda name: None)
    monkeypatch.setattr(C, "_spawn", lambda *groups: spawned.append(groups) or Done())
    C.ensure_compiled(loop, jobs=2, also=also)
    return spawned


def test_a_heuristics_only_run_compiles_no_random_pick_and_splits_the_rest_in_halves(monkeypatch):
    spawned = _groups_spawned(monkeypatch, "heuristic")
    assert spawned == [("apply",), ("heuristic",)]
    kernels = {k for groups in spawned for g in groups for k in C.GROUPS[g]}
    assert kernels == {"apply", "setup", "heuristic_pick"}


def test_a_run_with_random_or_searching_seats_compiles_their_groups(monkeypatch):
    assert _groups_spawned(monkeypatch, "basic") == [("rules",), ("picks",)]
    # the test session's warm-up: the search loop, and the two smaller loops beside its group
    assert _groups_spawned(monkeypatch, "search", also=("basic", "heuristic")) == [
        ("rules",),
        ("picks",),
        ("search",),
        ("basic_loop", "heuristic_loop"),
    ]
