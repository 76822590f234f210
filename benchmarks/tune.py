"""Tune the heuristic by self-play (CMA-ES on paired deals, lab.bots.tune) and check the result.

    pip install -e '.[tune]'
    python benchmarks/tune.py [--generations 30] [--popsize 12] [--deals 4] [--seed 0]
                              [--state results/tune-state.pkl]

Prints each generation's best and median score against the pool (balanced, aggressive, defensive
heuristics), resumes from --state when it exists, then scores the final mean parameters and the
balanced persona against the pool on fresh deals (different seed) with --check-deals deals per
ordered army pair and seat, and prints the parameters as JSON: that is what the `tuned` persona
in lab/bots/personas.py ships.
"""

import argparse
import json
import math
from pathlib import Path

from lab.bots.personas import PERSONAS
from lab.bots.tune import Evaluator, tune

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--generations", type=int, default=30)
    ap.add_argument("--popsize", type=int, default=12)
    ap.add_argument("--deals", type=int, default=4)
    ap.add_argument("--check-deals", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--state", type=Path, default=Path("results/tune-state.pkl"))
    a = ap.parse_args()
    a.state.parent.mkdir(parents=True, exist_ok=True)
    out = tune(a.state, a.generations, a.popsize, seed=a.seed, evaluator=Evaluator(deals=a.deals))
    check = Evaluator(deals=a.check_deals)
    report = {}
    for name, params in (("tuned", out["params"]), ("balanced", PERSONAS["balanced"])):
        s = check.score(params, seed=10_000 + a.seed)
        half = 1.96 * math.sqrt(s * (1 - s) / check.games)
        report[name] = {"score_vs_pool": round(s, 4), "ci95": [round(s - half, 4), round(s + half, 4)],
                        "games": check.games}
    print(json.dumps({"tuned_params": out["params"], "check": report,
                      "generations": len(out["history"])}, indent=2))
