"""Issue 5: compiled bots — specs, personas that play differently, and no peeking (rules.md R1):
every built-in bot decides the same when everything hidden from it is re-dealt."""

from _support.jit_run import run_support
import numpy as np
import pytest

from lab.games.daitenka.bots import nb_policy
from lab.games.daitenka.bots.match import Batch, parse_bot
from lab.games.daitenka.bots.nb_params import BP_TICKS
from lab.games.daitenka.bots.nb_search import SB_SIZE
from lab.games.daitenka.cards.pool import load_armies, load_pool
from lab.games.daitenka.engine.api import Game
from lab.games.daitenka.engine.context import matchup_context
from lab.games.daitenka.engine.layout import *  # noqa: F403
from lab.games.daitenka.engine.nb_actions import legal_actions
from lab.games.daitenka.engine.nb_play import RES_CNT
from lab.errors import LabError
from lab.games.daitenka.rules import RuleSet
from lab.stats.intervals import mean_interval

from _support.hidden import positions as _random_positions, resample_hidden

BOTS = [
    "random",
    "heuristic",
    {"kind": "heuristic", "persona": "aggressive"},
    {"kind": "heuristic", "persona": "defensive"},
    "tuned",
    {"kind": "search", "simulations": 40},
    {"kind": "expert", "simulations": 60},
    "strong",
]


def _decide(g: Game, spec) -> tuple:
    n = legal_actions(g.s, g.c, g._acts, g._wk)
    k = nb_policy.choose(
        g.s,
        g.c,
        g.lg,
        g._acts,
        n,
        g._wk,
        parse_bot(spec).pack(),
        np.zeros(SB_SIZE, np.int64),
        np.zeros((MAXA, AW), np.int64),
    )
    return tuple(int(x) for x in g._acts[k])


@pytest.fixture(scope="module")
def positions():
    return _random_positions()


@pytest.mark.parametrize("spec", BOTS, ids=lambda b: parse_bot(b).label)
def test_no_peeking(positions, spec):
    rng = np.random.default_rng(1)
    changed_hidden = 0
    for g in positions:
        me = int(g.s[G_TO_MOVE])
        base = _decide(g.copy(), spec)
        for _ in range(2):
            h = resample_hidden(g, me, rng)
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
        h = resample_hidden(g, me, rng)
        if not np.array_equal(
            h.s[opp + PB_HAND : opp + PB_HAND + NL], g.s[opp + PB_HAND : opp + PB_HAND + NL]
        ):
            moved += 1
    assert moved > len(positions) // 3


@pytest.mark.parametrize("preset", ["second_edition", "legacy_testlab", "sekigahara_trial"])
def test_heuristic_pick_takes_the_step_scoring_the_listing_would(preset):
    """heuristic_pick (no listing for 帰陣, sets of one card type, 見送り, castles …) chooses the
    row heuristic_choose picks from legal_actions, and counts the steps the same, at every
    decision of games mixing heuristic and random moves, for every persona and for weights so
    large that the 帰陣 shortcut must not be taken."""
    from lab.games.daitenka.bots.nb_heuristic import heuristic_choose, heuristic_pick
    from lab.games.daitenka.bots.personas import PERSONAS

    specs = [
        *PERSONAS,
        {"kind": "heuristic", "wall_gain": 10**7},
        {"kind": "heuristic", "return_min": 13, "card": -150},
    ]
    bots = [parse_bot(x).pack() for x in specs]
    armies = [a.key for a in load_armies()]
    rng = np.random.default_rng(4)
    picked = np.zeros((MAXA, AW), np.int64)
    kinds, decisions = set(), 0
    for k in range(36):
        g = Game(preset, armies[k % 9], armies[(k * 7 + 2) % 9], seed=k)
        while not g.is_over:
            legal = g.legal_actions()
            n = legal_actions(g.s, g.c, g._acts, g._wk)
            for bot in bots:
                best = heuristic_choose(g.s, g.c, g._acts, n, bot)
                listed = heuristic_pick(g.s, g.c, picked, g._wk, bot)
                assert tuple(picked[0]) == tuple(g._acts[best]), legal[best].text
                assert listed in (n, 0)
                kinds.add(int(g._acts[best, AX_KIND]))
            decisions += 1
            g._legal = None
            g.step(int(rng.integers(n)) if rng.random() < 0.3 else legal[best].text)
    assert decisions > 600 and {A_RETURN, A_LEAD, A_ANSWER, A_PASS} <= kinds


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
            r, _ = batch.play(
                c, rng.integers(1, 2**32, size=(per, 12)), parse_bot(spec), parse_bot("heuristic")
            )
            rows.append(r[:, RES_CNT : RES_CNT + N_CNT])
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


@pytest.mark.parametrize(
    "spec, words",
    [
        ("smart", "unknown bot kind"),
        ({"kind": "heuristic", "persona": "reckless"}, "persona"),
        ({"kind": "heuristic", "depth": 3}, "unknown parameter"),
        ({"kind": "search", "simulations": 0}, "simulations"),
        ({"kind": "random", "persona": "aggressive"}, "no parameters"),
        (42, "a bot is a name"),
        ({"kind": "heuristic", "widen": 200}, "unknown parameter"),
        ({"kind": "search", "time_ms": 20}, "unknown parameter"),
        ({"kind": "expert", "time_ms": -1}, "time_ms"),
        ({"kind": "expert", "simulations": 200_000}, "simulations"),
    ],
)
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


def test_persona_names_and_the_expert_parse_to_specs():
    assert parse_bot("tuned") == parse_bot({"kind": "heuristic", "persona": "tuned"})
    assert parse_bot("tuned").short == "tuned"
    e = parse_bot("expert")
    assert e.kind == "expert" and e.pack()[0] == 3
    assert parse_bot({"kind": "search", "simulations": 3000}).short == "search(3000)"
    assert parse_bot({"kind": "expert", "time_ms": 50}).pack()[BP_TICKS] > 0
    assert parse_bot("expert").pack()[BP_TICKS] == 0


def _expert_tree(g: Game, spec) -> tuple[tuple, np.ndarray]:
    """The expert's decision and the buffer it built its tree in."""
    n = legal_actions(g.s, g.c, g._acts, g._wk)
    sb = np.zeros(SB_SIZE, np.int64)
    k = nb_policy.choose(
        g.s,
        g.c,
        g.lg,
        g._acts,
        n,
        g._wk,
        parse_bot(spec).pack(),
        sb,
        np.zeros((MAXA, AW), np.int64),
    )
    return tuple(int(x) for x in g._acts[k]), sb


def test_expert_builds_a_tree_over_both_seats_and_plays_its_most_visited_action(positions):
    from lab.games.daitenka.bots import nb_buffer as B
    from lab.games.daitenka.bots.nb_expert import action_key, find_child, nd

    deep = 0
    for g in positions[:12]:
        me = int(g.s[G_TO_MOVE])
        choice, sb = _expert_tree(g.copy(), {"kind": "expert", "simulations": 300})
        nodes = int(sb[B.EX_NODES])
        assert sb[nd(0, B.N_VISITS)] == 300 and 1 < nodes <= 301  # ≤ one new node an iteration
        movers = np.array([sb[nd(x, B.N_MOVER)] for x in range(1, nodes)])
        deep += (movers == 1 - me).any()  # the opponent's replies have nodes of their own
        n = legal_actions(g.s, g.c, g._acts, g._wk)
        visits = [
            sb[nd(c, B.N_VISITS)]
            if (c := find_child(sb, 0, action_key(g._acts[k], me))) >= 0
            else -1
            for k in range(n)
        ]
        assert choice == tuple(int(x) for x in g._acts[int(np.argmax(visits))])
        assert sum(v for v in visits if v > 0) == 300  # every iteration went through the root
    assert deep >= 6


def test_expert_time_budget_stops_early(positions):
    from lab.games.daitenka.bots import nb_buffer as B
    from lab.games.daitenka.bots.nb_expert import nd

    g = next(p for p in positions if legal_actions(p.s, p.c, p._acts, p._wk) > 3)
    _, sb = _expert_tree(g.copy(), {"kind": "expert", "simulations": 100_000, "time_ms": 5})
    assert 0 < sb[nd(0, B.N_VISITS)] < 100_000


def test_expert_is_deterministic_for_a_seed(positions):
    spec = {"kind": "expert", "simulations": 80}
    for g in positions[:5]:
        assert _decide(g.copy(), spec) == _decide(g.copy(), spec)


def test_expert_beats_the_heuristic():
    """A broken tree (wrong backup sign, wrong mover) plays far below the heuristic."""
    from lab.games.daitenka.bots.ladder import play_pair

    aw, bw, d = play_pair(
        parse_bot({"kind": "expert", "simulations": 150}),
        parse_bot("heuristic"),
        162,
        RuleSet(),
        seed=5,
    )
    assert (aw + 0.5 * d) / (aw + bw + d) > 0.58


def test_expert_decides_the_same_compiled_and_under_numba_disable_jit():
    """architecture.md principle 1, for the tree search (hash, UCB floats, availability)."""
    runs = [run_support("expert_decisions", jit=jit) for jit in (True, False)]
    assert len(runs[0]) == 8 and runs[0] == runs[1]


def test_the_evaluation_is_a_chance_that_sums_to_one_over_the_seats(positions):
    """nb_eval: antisymmetric features, so the two seats' chances add up to 1; more walls (the
    opponent's broken) is worth more to a seat."""
    from lab.games.daitenka.bots.nb_eval import WEIGHTS, N_FEAT, features, win_prob

    f = np.zeros(N_FEAT)
    for g in positions:
        a, b = win_prob(g.s, g.c, 0, WEIGHTS), win_prob(g.s, g.c, 1, WEIGHTS)
        assert 0 < a < 1 and a + b == pytest.approx(1.0, abs=1e-12)
        features(g.s, g.c, 0, f)
        fb = f.copy()
        features(g.s, g.c, 1, fb)
        assert np.allclose(f, -fb)
    g = next(p for p in positions if p.s[P1 + PB_WALL_N] >= 4)
    h = g.copy()
    h.s[P1 + PB_WALL_N] -= 3
    assert win_prob(h.s, h.c, 0, WEIGHTS) > win_prob(g.s, g.c, 0, WEIGHTS) + 0.05


def test_evaluation_fit_learns_from_self_play():
    """lab.games.daitenka.bots.evalfit: on a small self-play sample the walls carry positive weight and the
    model predicts held-out results better than the walls alone."""
    from lab.games.daitenka.bots.evalfit import fit, positions as selfplay

    out = fit(*selfplay(games_per_pair=4, random_moves=0.05, seed=3))
    assert out["rows"] > 2000 and out["weights"][0] > 0
    assert out["held_out_logloss"] < out["walls_only_logloss"]


def test_the_cutoff_scores_playouts_by_the_evaluation(positions):
    """cutoff = 1: a playout stops at its first leader-turn start, so node values are
    thousandths of a chance (not only 0, 500 or 1000 per visit) and the decision still comes
    from the most visited root child; cutoff is an expert parameter only."""
    from lab.games.daitenka.bots import nb_buffer as B
    from lab.games.daitenka.bots.nb_expert import WIN, nd

    fractional = 0
    for g in positions[:8]:
        _, sb = _expert_tree(g.copy(), {"kind": "expert", "simulations": 200, "cutoff": 1})
        vals = np.array([sb[nd(x, B.N_VALUE)] for x in range(1, int(sb[B.EX_NODES]))])
        visits = np.array([sb[nd(x, B.N_VISITS)] for x in range(1, int(sb[B.EX_NODES]))])
        assert (vals <= WIN * visits).all() and (vals >= 0).all()
        fractional += (vals % (WIN // 2) != 0).any()
    assert fractional >= 6
    with pytest.raises(LabError, match="unknown parameter"):
        parse_bot({"kind": "search", "cutoff": 1})
