"""Engine benchmark: `python benchmarks/engine.py [--games N] [--runs R] [--compile-runs K]`.

The same measurement as `lab bench` (lab/games/daitenka/bench.py): random-vs-random full games per preset on one
core, all nine armies round robin; medians of R runs; cold compile and cached start of a fresh
process, medians of K runs. Prints JSON.

`--no-abilities` zeroes every card's effect rows first (units only; tactics and castles inert):
the cost of the abilities is the ratio of the two runs.
"""

import argparse
import json

from lab.games.daitenka.bench import run

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--compile-runs", type=int, default=3)
    ap.add_argument("--no-abilities", action="store_true")
    a = ap.parse_args()
    if a.no_abilities:
        from lab.games.daitenka.cards.pool import CardPool, PoolTables

        real = CardPool.tables

        def without_abilities(self):
            t = real(self)
            return PoolTables(t.strength, t.kind, t.cost, t.rows * 0)

        CardPool.tables = without_abilities
    print(json.dumps(run(games=a.games, runs=a.runs, compile_runs=a.compile_runs), indent=2))
