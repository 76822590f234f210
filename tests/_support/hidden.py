"""Positions from random games and a re-deal of everything one seat cannot see: the no-peeking
checks of the bots (tests/test_bots.py), of the RL environment (tests/test_env.py) and of the
golden playthroughs (tests/test_golden.py), for 大天下 and for Rumble Nation."""

import numpy as np

from lab.games.daitenka.cards.pool import load_armies
from lab.games.daitenka.engine.api import Game
from lab.games.daitenka.rules import RuleSet


def positions(count=60, seed=0):
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


def resample_hidden(g: Game, observer: int, rng) -> Game:
    """Re-deal what ``observer`` cannot see (the game's own ``redeal_hidden``)."""
    return g.redeal_hidden(observer, rng)


def resample_hidden_rn(g, rng):
    """A Rumble Nation game with what no seat can see re-drawn (``redeal_hidden``)."""
    return g.redeal_hidden(g.seats[0], rng)
