"""Issue 14: the PettingZoo environment (lab.games.daitenka.env) passes PettingZoo's API test, masks exactly the
legal steps, and shows an agent only what its seat may see (rules.md R1)."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the rl extra (pip install '.[rl]') is not installed")

from pettingzoo.test import api_test  # noqa: E402

import lab.games.daitenka.env  # noqa: E402
from lab.games.daitenka.bots.play import bot_action  # noqa: E402
from lab.games.daitenka.engine.text import SEATS  # noqa: E402
from _support.hidden import positions, resample_hidden  # noqa: E402


# api_test's style recommendations, declined on purpose: agents are named after the seats ("A",
# "B") like everywhere else in the lab, and the observation is a dict holding the action mask
@pytest.mark.filterwarnings("ignore:We recommend agents to be named")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
def test_pettingzoo_api_test_passes():
    api_test(lab.games.daitenka.env.env(), num_cycles=200)


def test_mask_marks_exactly_the_legal_steps_and_illegal_actions_are_refused():
    e = lab.games.daitenka.env.env(armies=("oda", "seigun"))
    e.reset(seed=3)
    for _ in range(40):
        agent = e.agent_selection
        obs, reward, term, trunc, info = e.last()
        if term:
            break
        legal = e.game.legal_actions()
        assert obs["action_mask"].sum() == len(legal) == len(info["legal_steps"])
        assert info["legal_steps"] == [a.text for a in legal]
        with pytest.raises(ValueError, match="not legal"):
            e.step(len(legal))
        assert e.agent_selection == agent  # a refused action changes nothing
        e.step(len(legal) - 1)


def test_observation_does_not_change_when_hidden_cards_are_redealt():
    rng = np.random.default_rng(4)
    n_types = lab.games.daitenka.env.env().n_types
    moved = 0
    for g in positions(count=30, seed=5):
        me = SEATS.index(g.to_move)
        base = lab.games.daitenka.env.encode_observation(g, me, n_types)
        for _ in range(2):
            h = resample_hidden(g, me, rng)
            moved += not np.array_equal(h.s, g.s)
            assert np.array_equal(lab.games.daitenka.env.encode_observation(h, me, n_types), base)
    assert moved > 30


def test_a_random_policy_plays_whole_games_against_a_builtin_bot():
    """The example's loop: seat A a masked random policy, seat B the heuristic."""
    e = lab.games.daitenka.env.env()
    rng = np.random.default_rng(0)
    results = []
    for episode in range(6):
        e.reset(seed=episode)
        final = {}
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            if term or trunc:
                final[agent] = reward
                action = None
            elif agent == "A":
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            else:
                steps = info["legal_steps"]
                action = steps.index(bot_action(e.game, "heuristic", rng=episode).text)
            e.step(action)
        assert final["A"] == -final["B"]
        results.append(final["B"])
    assert set(results) <= {-1.0, 0.0, 1.0}
    assert sum(r > 0 for r in results) >= 4  # the heuristic beats a random policy
