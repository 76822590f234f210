"""Issue 5: compiled bots — specs, personas that play differently, and no peeking (rules.md R1):
every built-in bot decides the same when everything hidden from it is re-dealt."""

import numpy as np
import pytest

from lab.bots import nb_policy
from lab.bots.match import Batch, parse_bot
from lab.bots.nb_search import SB_SIZE
from lab.cards.pool import load_armies, load_pool
from lab.engine.api import Game
from lab.engine.context import matchup_context
from lab.engine.layout import *  # noqa: F403
from lab.engine.nb_actions import legal_actions
from lab.engine.nb_play import N_RES, RES_CNT
from lab.errors import LabError
from lab.rules import RuleSet
from lab.stats.intervals import mean_interval

BOTS = ["random", "heuristic", {"kind": "heuristic", "persona": "aggressive"},
        {"kind": "heuristic", "persona": "defensive"}, {"kind": "search", "simulations": 40}]


def _positions(count=60, seed=0):
    """Mid-game states from random games over several armies (copies of the state array)."""
    rng = np.random.default_rng(seed)
    armies = [a.key for a in load_armies()]
    out = []
    k = 0
    while len(out) < count:
        g = Game(RuleSet(), armies[k % 9], armies[(k * 4 + 1) % 9], seed=k)
        k += 1
        while not g.is_over:
            acts = g.legal_actions()
            if len(acts) > 1 and rng.random() < 0.25:
                out.append(g.copy())
            g.step(int(rng.integers(len(acts))))
    return out[:count]


def _resample_hidden(g: Game, observer: int, rng) -> Game:
    """Re-deal what ``observer`` cannot see: each player's deck and walls, and the opponent's
    hand cards the observer does not know, moved among that player's hidden places."""
    h = g.copy()
    s = h.s
    n = int(h.c[C_NLOC])
    for q in (0, 1):
        b = H_SIZE + q * P_SIZE
        pool = [int(s[b + PB_DECK + k]) for k in range(int(s[b + PB_DECK_N]))]
        pool += [int(s[b + PB_WALLS + k]) for k in range(int(s[b + PB_WALL_N]))]
        unknown = []
        if q != observer:
            ob = H_SIZE + observer * P_SIZE
            for i in range(n):
                for _ in range(int(s[b + PB_HAND + i] - s[ob + PB_KNOWN + i])):
                    unknown.append(i)
        for i in unknown:
            s[b + PB_HAND + i] -= 1
        pool += unknown
        rng.shuffle(pool)
        d, w = int(s[b + PB_DECK_N]), int(s[b + PB_WALL_N])
        for k in range(d):
            s[b + PB_DECK + k] = pool[k]
        for k in range(w):
            s[b + PB_WALLS + k] = pool[d + k]
        for i in pool[d + w:]:
            s[b + PB_HAND + i] += 1
        mask = 0
        for i in range(n):
            if s[b + PB_HAND + i] > 0:
                mask |= 1 << i
        s[b + PB_HAND_MASK] = mask
    return h


def _decide(g: Game, spec) -> tuple:
    n = legal_actions(g.s, g.c, g._acts, g._wk)
    k = nb_policy.choose(g.s, g.c, g.lg, g._acts, n, g._wk, parse_bot(spec).pack(),
                         np.zeros(SB_SIZE, np.int64), np.zeros((MAXA, AW), np.int64))
    return tuple(int(x) for x in g._acts[k])


@pytest.fixture(scope="module")
def positions():
    return _positions()


@pytest.mark.parametrize("spec", BOTS, ids=lambda b: parse_bot(b).label)
def test_no_peeking(positions, spec):
    rng = np.random.default_rng(1)
    changed_hidden = 0
    for g in positions:
        me = int(g.s[G_TO_MOVE])
        base = _decide(g.copy(), spec)
        for _ in range(2):
            h = _resample_hidden(g, me, rng)
            if not np.array_equal(h.s, g.s):
                changed_hidden += 1
            assert _decide(h, spec) == base, "the decision changed when hidden cards moved"
    assert changed_hidden > len(positions)  # the resampling really moved hidden cards


def test_a_peeking_bot_would_be_caught(positions):
    """The resampling changes what a bot reading the opponent's hand would see."""
    moved = 0
    rng = np.random.default_rng(2)
    for g in positions:
        me = int(g.s[G_TO_MOVE])
        opp = H_SIZE + (1 - me) * P_SIZE
        h = _resample_hidden(g, me, rng)
        if not np.array_equal(h.s[opp + PB_HAND:opp + PB_HAND + NL],
                              g.s[opp + PB_HAND:opp + PB_HAND + NL]):
            moved += 1
    assert moved > len(positions) // 3


def _behaviour(spec, games=324, seed=3):
    """Per-game behaviour counters (layout CNT_*) of ``spec`` playing seat A against the
    balanced heuristic over all ordered army pairs."""
    pool = load_pool()
    armies = load_armies(pool)
    batch = Batch()
    rng = np.random.default_rng(seed)
    rows = []
    per = max(1, games // 81)
    for a in armies:
        for b in armies:
            c = matchup_context(pool, RuleSet(), a, b)
            r, _ = batch.play(c, rng.integers(1, 2**32, size=(per, 12)), parse_bot(spec),
                              parse_bot("heuristic"))
            rows.append(r[:, RES_CNT:RES_CNT + N_CNT])
    return np.concatenate(rows)


def test_personas_play_measurably_differently():
    """見送り and tactic/籠城 use per game: the aggressive and defensive personas' 95% intervals
    do not overlap."""
    agg = _behaviour({"kind": "heuristic", "persona": "aggressive"})
    dfn = _behaviour({"kind": "heuristic", "persona": "defensive"})
    separated = 0
    for cols in ([CNT_MIOKURI], [CNT_TACTIC, CNT_SIEGE], [CNT_INF]):
        _, lo_a, hi_a, _ = mean_interval(agg[:, cols].sum(axis=1))
        _, lo_d, hi_d, _ = mean_interval(dfn[:, cols].sum(axis=1))
        separated += hi_a < lo_d or hi_d < lo_a
    assert separated >= 2


@pytest.mark.parametrize("spec, words", [
    ("smart", "unknown bot kind"),
    ({"kind": "heuristic", "persona": "reckless"}, "persona"),
    ({"kind": "heuristic", "depth": 3}, "unknown parameter"),
    ({"kind": "search", "simulations": 0}, "simulations"),
    ({"kind": "random", "persona": "aggressive"}, "no parameters"),
    (42, "a bot is a name"),
])
def test_bad_bot_specs_are_refused_clearly(spec, words):
    with pytest.raises(LabError, match=words):
        parse_bot(spec)


def test_bot_labels_and_packing():
    s = parse_bot({"kind": "search", "simulations": 400})
    assert s.label == "search(simulations=400)"
    packed = s.pack()
    assert packed[0] == 2 and 400 in packed
    assert parse_bot("heuristic").pack()[0] == 1


def test_search_is_deterministic_for_a_seed(positions):
    g = positions[5]
    spec = {"kind": "search", "simulations": 60}
    assert _decide(g.copy(), spec) == _decide(g.copy(), spec)
