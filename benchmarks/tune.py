"""Tune the heuristic by self-play (CMA-ES on paired deals, lab.games.daitenka.bots.tune) and check the result.

    pip install -e '.[tune]'
    python benchmarks/tune.py [--generations 30] [--popsize 12] [--scale 1] [--seed 0]
                              [--start balanced] [--state results/tune-state.pkl]
                              [--match-rates TARGETS.toml [--deals 300] [--sigma 0.5]]

With --match-rates the fitness is not a score against a pool but how closely the candidate's
self-play puts each army where the targets file's tier does (lab.games.daitenka.bots.tune.
RateEvaluator; benchmarks/proposals/search400_rates.toml holds search(400)'s rates on twelve deck
sets): the check then prints, per set, the root mean square over the armies of each parameter
set's rates minus the targets (1,000 deals per ordered pair, another seed).

Prints each generation's best and median score against the pool (balanced, aggressive, defensive
heuristics and search(25), lab.games.daitenka.bots.tune.DEFAULT_POOL), resumes from --state when it exists, then
scores the final mean parameters, the start persona and balanced against each opponent of the pool on
fresh deals (another seed, --check-scale times the deals), and prints the parameters as JSON:
that is what the `tuned` persona in lab/games/daitenka/bots/personas.py ships.
"""

import argparse
import json
import math
from pathlib import Path

from lab.games.daitenka.bots.personas import PERSONAS
from lab.games.daitenka.bots.tune import Evaluator, RateEvaluator, tune


def check_rates(targets: Path, results: dict, seed: int) -> dict:
    """Per set, each parameter set's rms difference from the targets (points), on fresh deals."""
    import numpy as np

    ev = RateEvaluator(targets, deals=1000)
    report = {}
    for name, params in results.items():
        errors = ev.errors(params, seed)
        report[name] = {
            s.name: round(float(np.sqrt(np.mean(e**2))), 2) for s, e in zip(ev.sets, errors)
        }
        report[name]["all"] = round(float(np.sqrt(np.mean(np.concatenate(errors) ** 2))), 2)
    return report


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--generations", type=int, default=30)
    ap.add_argument("--popsize", type=int, default=12)
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--check-scale", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", default="balanced", help="persona the search starts from")
    ap.add_argument("--state", type=Path, default=Path("results/tune-state.pkl"))
    ap.add_argument("--match-rates", type=Path, default=None, help="fit to a tier's army rates")
    ap.add_argument("--deals", type=int, default=300, help="deals per ordered pair (--match-rates)")
    ap.add_argument("--sigma", type=float, default=0.5, help="CMA-ES's first step size")
    a = ap.parse_args()
    a.state.parent.mkdir(parents=True, exist_ok=True)
    out = tune(
        a.state,
        a.generations,
        a.popsize,
        sigma=a.sigma,
        seed=a.seed,
        start=a.start,
        evaluator=RateEvaluator(a.match_rates, a.deals)
        if a.match_rates
        else Evaluator(scale=a.scale),
    )
    if a.match_rates:
        shipped = {"result": out["params"], a.start: PERSONAS[a.start]}
        print(
            json.dumps(
                {
                    "tuned_params": out["params"],
                    "rms": check_rates(a.match_rates, shipped, 10_000 + a.seed),
                    "generations": len(out["history"]),
                },
                indent=2,
                ensure_ascii=False,
            )
        )
        raise SystemExit(0)
    check = Evaluator(scale=a.check_scale)
    report = {}
    for name, params in (
        ("result", out["params"]),
        (a.start, PERSONAS[a.start]),
        ("balanced", PERSONAS["balanced"]),
    ):
        rows = {}
        for (opp, deals), s in zip(check.opponents, check.scores(params, seed=10_000 + a.seed)):
            n = 2 * deals * len(check.contexts)
            half = 1.96 * math.sqrt(s * (1 - s) / n)
            rows[opp.label] = {
                "score": round(s, 4),
                "ci95": [round(s - half, 4), round(s + half, 4)],
                "games": n,
            }
        report[name] = rows
    print(
        json.dumps(
            {"tuned_params": out["params"], "check": report, "generations": len(out["history"])},
            indent=2,
        )
    )
