"""Play a few seeded games of the strong bot against the heuristic and print their results and
final-state checksums as JSON: run compiled and under NUMBA_DISABLE_JIT=1 by tests/test_strong.py,
which compares the two."""

import json

import numpy as np

from lab.games.daitenka.bots.match import Batch, parse_bot
from lab.games.daitenka.cards.pool import load_armies, load_pool
from lab.games.daitenka.engine.context import matchup_context
from lab.games.daitenka.rules import RuleSet

if __name__ == "__main__":
    pool = load_pool()
    armies = load_armies(pool)
    batch = Batch()
    out = []
    for k, (a, b) in enumerate([(0, 3), (5, 8)]):
        c = matchup_context(pool, RuleSet(), armies[a], armies[b])
        seeds = np.random.default_rng(k).integers(1, 2**32, size=(1, 12)).astype(np.int64)
        results, stats = batch.play(c, seeds, parse_bot("strong"), parse_bot("heuristic"))
        out.append([results.tolist(), int(stats.sum()), int(batch.s.sum())])
    print(json.dumps(out))
