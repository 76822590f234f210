"""How closely a cheap bot rates the armies as search(400) does: `python benchmarks/tier_proxy.py
[--bot BOT …] [--deals N] [--targets FILE] [--seed S] [--jobs J]`.

Each bot (as --bot names one: "tuned", "strong", '{ kind = "search", simulations = 25 }')
plays itself on every deck set of the targets file (default benchmarks/proposals/
search400_rates.toml: search(400)'s army rates on twelve deck sets), N deals per ordered pair of
different armies, and the script prints per set the root mean square over the nine armies of
its rates minus the targets, the same over every set, and the worst army's mean difference.
The targets carry their own noise (0.5–0.9 points per army). A balance proposal must hold at
`tuned` and at search(400) (issue 26): the closer a cheap tier is, the less the two can
disagree. Nothing is asserted: it is a measurement.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from lab.games.daitenka.schema.bots import bot_from_text

TARGETS = Path(__file__).resolve().parent / "proposals" / "search400_rates.toml"


def measure(bot: str, targets: Path, deals: int, seed: int, index: int, every: int):
    """The army keys, and the rates minus the targets (points) of every ``every``-th set from
    ``index``."""
    from lab.games.daitenka.bots.tune import RateEvaluator

    ev = RateEvaluator(targets, deals)
    ev.sets = ev.sets[index::every]
    errors = ev.errors(bot_from_text(bot), seed)
    return ev.sets[0].armies, [(s.name, e) for s, e in zip(ev.sets, errors)]


def noise_points(targets: Path, deals: int, armies: int) -> float:
    """The rms a bot that rated every army exactly as the targets' tier would still show: its
    own games' binomial noise (about a 50% rate) and the targets' (their games_per_army)."""
    import tomllib

    sets = tomllib.loads(targets.read_text(encoding="utf-8"))["set"]
    own = 0.25 / (2 * (armies - 1) * deals)
    theirs = np.mean([0.25 / s["games_per_army"] for s in sets if "games_per_army" in s] or [0.0])
    return 100 * float(np.sqrt(own + theirs))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bot", action="append", help="bots to measure (default tuned, heuristic)")
    ap.add_argument("--deals", type=int, default=300, help="deals per ordered pair (default 300)")
    ap.add_argument("--targets", type=Path, default=TARGETS)
    ap.add_argument("--seed", type=int, default=10_000)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    for bot in a.bot or ["tuned", "heuristic"]:
        t = time.perf_counter()
        parts = Parallel(n_jobs=a.jobs)(
            delayed(measure)(bot, a.targets, a.deals, a.seed, k, a.jobs) for k in range(a.jobs)
        )
        armies = parts[0][0]
        rows = [row for _, part in parts for row in part]
        every = np.concatenate([e for _, e in rows])
        mean = np.mean([e for _, e in rows], axis=0)
        worst = int(np.argmax(np.abs(mean)))
        sets = " ".join(f"{n} {np.sqrt(np.mean(e**2)):.2f}" for n, e in rows)
        rms = float(np.sqrt(np.mean(every**2)))
        noise = noise_points(a.targets, a.deals, len(armies))
        print(
            f"{bot}: rms over every set {rms:.2f} points (noise alone about {noise:.2f}, so "
            f"about {np.sqrt(max(0.0, rms**2 - noise**2)):.2f} beyond it); worst army on "
            f"average {armies[worst]} {mean[worst]:+.1f}; per set: {sets} "
            f"({time.perf_counter() - t:.0f} s)",
            flush=True,
        )
