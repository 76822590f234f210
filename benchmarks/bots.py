"""Bot strength and speed (issue 5 targets), as a benchmark — never a timed test.

    python benchmarks/bots.py [--games N] [--sims S]

Prints JSON: heuristic vs random and search vs heuristic win rates (draws count half; each deal
played with seats swapped, over all ordered army pairs), the median wall time of one search
decision at the given budget (from the Python API, so it includes a little call overhead), and
heuristic-vs-heuristic against random-vs-random full-game speed on one core.
"""

import argparse
import json
import statistics
import time

import numpy as np

from lab.bots import nb_policy
from lab.bots.ladder import play_pair
from lab.bots.match import Batch, parse_bot
from lab.bots.nb_search import SB_SIZE
from lab.cards.pool import load_armies, load_pool
from lab.engine import nb_actions
from lab.engine.api import Game
from lab.engine.context import matchup_context
from lab.engine.layout import AW, MAXA, G_TO_MOVE
from lab.rules import RuleSet


def win_rate(a, b, games, seed):
    aw, bw, d = play_pair(parse_bot(a), parse_bot(b), games, RuleSet(), seed)
    return (aw + 0.5 * d) / (aw + bw + d), aw + bw + d


def search_decision_ms(spec, games=6):
    bot = parse_bot(spec).pack()
    sb = np.zeros(SB_SIZE, np.int64)
    sacts = np.zeros((MAXA, AW), np.int64)
    times = []
    armies = [a.key for a in load_armies()]
    for k in range(games):
        g = Game(None, armies[k % 9], armies[(k * 5 + 2) % 9], seed=k)
        while not g.is_over:
            acts = g.legal_actions()
            if int(g.s[G_TO_MOVE]) == 0 and len(acts) > 1:
                n = nb_actions.legal_actions(g.s, g.c, g._acts, g._wk)
                t = time.perf_counter()
                pick = nb_policy.choose(g.s, g.c, g.lg, g._acts, n, g._wk, bot, sb, sacts)
                times.append(time.perf_counter() - t)
                g._legal = None
                g.step(tuple(int(x) for x in g._acts[pick]))
            else:
                g.step(acts[0] if len(acts) == 1 else acts[-1])
    return statistics.median(times) * 1000, len(times)


def speed(a, b, games=20_000):
    pool = load_pool()
    armies = load_armies(pool)
    ctxs = [matchup_context(pool, RuleSet(), x, y) for x in armies for y in armies]
    per = -(-games // len(ctxs))
    batch = Batch()
    rng = np.random.default_rng(0)
    pa, pb_ = parse_bot(a), parse_bot(b)
    batch.play(ctxs[0], rng.integers(1, 2**32, size=(1, 12)), pa, pb_)
    t = time.perf_counter()
    for c in ctxs:
        batch.play(c, rng.integers(1, 2**32, size=(per, 12)), pa, pb_)
    return per * len(ctxs) / (time.perf_counter() - t)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--search-games", type=int, default=324)
    ap.add_argument("--sims", type=int, default=None)
    a = ap.parse_args()
    search = {"kind": "search"} | ({"simulations": a.sims} if a.sims else {})
    hr, hn = win_rate("heuristic", "random", a.games, 1)
    sr, sn = win_rate(search, "heuristic", a.search_games, 2)
    ms, decisions = search_decision_ms(search)
    hh = [speed("heuristic", "heuristic") for _ in range(3)]
    rr = [speed("random", "random") for _ in range(3)]
    print(json.dumps({
        "heuristic_vs_random": {"win_rate": hr, "games": hn},
        "search_vs_heuristic": {"win_rate": sr, "games": sn, "bot": parse_bot(search).label},
        "search_decision_ms_median": ms, "search_decisions_timed": decisions,
        "heuristic_games_per_s": statistics.median(hh),
        "random_games_per_s": statistics.median(rr),
        "heuristic_speed_ratio": statistics.median(hh) / statistics.median(rr),
    }, indent=2))
