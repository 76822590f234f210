"""The random bot's counted pick (lab/games/daitenka/engine/nb_pick.py) against the listed legal actions.

The benchmark's random bot no longer lists every legal step: it counts them group by group and
emits only the drawn one. It must count exactly what ``legal_actions`` lists and produce, for
every index k, exactly ``legal_actions(...)[k]`` — otherwise it would not be uniform over the
distinct steps (issue 3: "the random bot picks uniformly among the distinct legal step strings"),
and random games would differ between the fast loop and every other loop.
"""

from pathlib import Path

import numpy as np
import pytest

from lab.games.daitenka.bots.match import play_batch
from lab.games.daitenka.cards.pool import ARMIES, load_army, load_deck, load_pool
from lab.games.daitenka.engine import nb_play
from lab.games.daitenka.engine.context import matchup_context
from lab.games.daitenka.engine.layout import *  # noqa: F403
from lab.games.daitenka.engine.nb_actions import WK_SIZE, legal_actions
from lab.games.daitenka.engine.nb_pick import count_steps, nth_step
from lab.games.daitenka.engine.nb_play import setup, step_random
from lab.games.daitenka.engine.nb_core import rand_below
from lab.games.daitenka.engine.nb_resolve import apply, begin_turn
from lab.games.daitenka.rules import PRESETS

DECKS = Path(__file__).parent / "data" / "decks"


def _buffers():
    return (
        np.zeros(S_SIZE, np.int64),
        np.zeros((1, LW), np.int64),
        np.zeros((MAXA, AW), np.int64),
        np.zeros(WK_SIZE, np.int64),
    )


def _contexts(preset):
    pool = load_pool()
    mix = load_deck(DECKS / "pick_mix.toml", pool, size=None)
    armies = [load_army(a, pool) for a in ARMIES]
    pairs = [(mix, mix), (mix, armies[0]), (armies[1], mix)]
    pairs += [(armies[i], armies[(i * 4 + 1) % 9]) for i in range(9)]
    return [matchup_context(pool, PRESETS[preset], a, b) for a, b in pairs]


def _compare_states(c, seeds, seen):
    """Play random games; before every decision compare the counted pick with the listing for
    every index. Returns the number of states compared."""
    s, lg, acts, wk = _buffers()
    mine = np.zeros((MAXA, AW), np.int64)
    states = 0
    for seed in seeds:
        setup(s, c, lg, seed)
        while s[G_PHASE] != PH_OVER:
            if s[G_PHASE] == PH_LEADER_START:
                begin_turn(s, c, lg)
            n = legal_actions(s, c, acts, wk)
            assert count_steps(s, c, mine, wk) == n
            for k in range(n):
                nth_step(s, c, mine, wk, k)
                assert mine[0].tolist() == acts[k].tolist(), (k, acts[:n].tolist())
                row = acts[k]
                seen["fire"] += row[AX_FIRE] != 0
                seen["車懸り"] += row[AX_KURUMAGAKARI] >= 0
                seen["fire with 車懸り"] += row[AX_FIRE] != 0 and row[AX_KURUMAGAKARI] >= 0
                cards = [x for x in row[AX_C0 : AX_C0 + row[AX_N]] if x >= 0]
                if row[AX_KIND] in (A_LEAD, A_ANSWER) and len(cards) >= 2:
                    strengths = {int(c[C_STR + x]) for x in cards}
                    if len(strengths) > 1:
                        seen["run"] += 1
                    elif len(set(cards)) > 1:
                        seen["set of two types"] += 1
            states += 1
            step_random(s, c, lg, acts, wk)
    return states


@pytest.mark.parametrize("preset", list(PRESETS))
def test_counted_pick_is_the_listed_step_for_every_index(preset):
    rng = np.random.default_rng(11)
    seen = {"fire": 0, "車懸り": 0, "fire with 車懸り": 0, "run": 0, "set of two types": 0}
    states = 0
    for c in _contexts(preset):
        states += _compare_states(c, rng.integers(1, 2**32, size=(12, 12)), seen)
    assert states > 2000
    # the shapes the closed-form counts treat specially all occurred
    assert all(v > 0 for v in seen.values()), seen


def test_counted_pick_plays_the_same_games_as_the_listing_bot():
    """run_random and the batch loop's random seats (counted pick) give the same results and
    per-card statistics as a loop drawing rand_below(n) over legal_actions, for the same seeds."""
    c = _contexts("second_edition")[1]
    seeds = np.random.default_rng(5).integers(1, 2**32, size=(40, 12)).astype(np.int64)
    res = np.zeros((40, nb_play.N_RES), np.int64)
    stats = np.zeros((40, N_ST * NL), np.int32)
    nb_play.run_random(c, seeds, res, stats)
    batch_res, batch_stats = play_batch(c, seeds, "random", "random")
    s, lg, acts, wk = _buffers()
    for g, seed in enumerate(seeds):
        setup(s, c, lg, seed)
        while s[G_PHASE] != PH_OVER:
            if s[G_PHASE] == PH_LEADER_START:
                begin_turn(s, c, lg)
            n = legal_actions(s, c, acts, wk)
            apply(s, c, lg, acts[rand_below(s, G_RNG, n)])
        listed = np.zeros(nb_play.N_RES, np.int64)
        nb_play.record(s, listed)
        assert res[g].tolist() == listed.tolist() == batch_res[g].tolist()
        nloc = c[C_NLOC]
        listed_stats = s[ST_BASE : ST_BASE + N_ST * NL].reshape(N_ST, NL)[:, :nloc]
        assert (stats[g].reshape(N_ST, NL)[:, :nloc] == listed_stats).all()
        assert (batch_stats[g][:, :nloc] == listed_stats).all()
    assert res[:, nb_play.RES_DECISIONS].sum() > 40 * 10
