"""Positions from random games and a re-deal of everything one seat cannot see: the no-peeking
checks of the bots (tests/test_bots.py), of the RL environment (tests/test_env.py) and of the
golden playthroughs (tests/test_golden.py), for 大天下 and for Rumble Nation."""

import numpy as np

from lab.cards.pool import load_armies
from lab.engine.api import Game
from lab.engine.layout import C_NLOC, H_SIZE, P_SIZE, PB_DECK, PB_DECK_N, PB_HAND, PB_HAND_MASK, PB_KNOWN, PB_WALL_N, PB_WALLS
from lab.rules import RuleSet


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


def resample_hidden_rn(g, rng):
    """A Rumble Nation game with what no seat can see re-drawn: the dice still to come and the
    bots' stream. Everything else is public (the board, stocks, sword chips and the dice on the
    table: RN1–RN3 hide nothing from the other players)."""
    from lab.games.rumble_nation import nb_layout as RNL

    s = g.s.copy()
    words = rng.integers(1, 2**32, size=8, dtype=np.int64)
    s[RNL.S_DICE_RNG:RNL.S_DICE_RNG + 4] = words[:4]
    s[RNL.S_BOT_RNG:RNL.S_BOT_RNG + 4] = words[4:]
    return type(g)(g.rules, g.c.copy(), s)
