"""The search bot stops simulating once its choice is decided — when no other root action can
reach the leader's visits in the simulations left — and plays exactly what the full budget
would have: the same decisions on many positions and the same whole games as before the
shortcut (the references below were recorded with every simulation run). Its simulations draw
from the search's own generator, seeded once per decision from the play stream, so stopping
early leaves the game's stream as it was."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from _support.hidden import positions
from lab.games.daitenka.bots import nb_buffer as B
from lab.games.daitenka.bots import nb_policy
from lab.games.daitenka.bots.match import Batch, parse_bot
from lab.games.daitenka.bots.nb_search import decided
from lab.games.daitenka.cards.pool import load_armies, load_pool
from lab.games.daitenka.engine.context import matchup_context
from lab.games.daitenka.engine.layout import AW, MAXA
from lab.games.daitenka.engine.nb_actions import legal_actions
from lab.games.daitenka.rules import RuleSet

# search(400)'s choice on positions(count=40, seed=7), recorded without the shortcut
DECISIONS = [
    7, 8, 2, 1, 3, 1, 1, 3, 13, 2, 3, 1, 1, 6, 2, 10, 0, 1, 3, 2,
    1, 1, 10, 0, 10, 4, 2, 3, 3, 1, 1, 5, 4, 1, 2, 2, 3, 2, 3, 6,
]  # fmt: skip
# sha256 of the results rows and final states of search(400) against itself (GAMES below),
# recorded without the shortcut
GAMES_DIGEST = "88a2e179500918eba9e3c7a913564f5c7f712925a79bb76e650285baf1d4f908"
GAMES = [(0, 3), (5, 8), (4, 6)]


def _buffer(*visits) -> np.ndarray:
    sb = np.zeros(B.SB_SIZE, np.int64)
    for k, v in enumerate(visits):
        sb[B.SB_VISITS + k] = v
    return sb


@pytest.mark.parametrize(
    ("visits", "left", "done"),
    [
        ((10, 5), 4, True),  # 5 + 4 < 10: the runner-up cannot catch up
        ((10, 6), 4, False),  # 6 + 4 = 10: a tie on visits is broken by value, still open
        ((3, 9, 2), 5, True),  # the leader need not be the first action
        ((3, 9, 2), 6, False),  # 3 + 6 = 9: still open
        ((3, 9, 4), 4, True),
        ((3, 9, 4), 5, False),
        ((7,), 100, True),  # one action: nothing to decide (search_choose returns before)
        ((0, 0), 2, False),
    ],
)
def test_decided_when_no_other_action_can_reach_the_leaders_visits(visits, left, done):
    assert decided(_buffer(*visits), len(visits), left) is done


def _choices() -> list[int]:
    bot = parse_bot({"kind": "search", "simulations": 400}).pack()
    out = []
    for g in positions(count=40, seed=7):
        n = legal_actions(g.s, g.c, g._acts, g._wk)
        sb = np.zeros(B.SB_SIZE, np.int64)
        sacts = np.zeros((MAXA, AW), np.int64)
        out.append(int(nb_policy.choose(g.s, g.c, g.lg, g._acts, n, g._wk, bot, sb, sacts)))
    return out


def test_the_search_decides_as_with_every_simulation():
    assert _choices() == DECISIONS


def _games_digest() -> str:
    pool = load_pool()
    armies = load_armies(pool)
    batch = Batch()
    bot = parse_bot("search")
    out = []
    for k, (a, b) in enumerate(GAMES):
        c = matchup_context(pool, RuleSet(), armies[a], armies[b])
        seeds = np.random.default_rng(k).integers(1, 2**32, size=(2, 12)).astype(np.int64)
        results, stats = batch.play(c, seeds, bot, bot)
        out.append([results.tolist(), stats.tolist(), int(batch.s.sum())])
    return hashlib.sha256(json.dumps(out).encode()).hexdigest()


def test_whole_search_games_are_as_with_every_simulation():
    assert _games_digest() == GAMES_DIGEST
