"""Card value benchmark: `python benchmarks/value.py [--games N] [--runs R] [--jobs J] [--json]`.

Issue 12 asks that `lab value configs/default.toml` — every card of the nine armies, both
contrasts — reach a 95% half-width of at most 2 points per card within 10 minutes on 2 cores
(measured then at the heuristic tier; the config plays the tuned heuristic since issue 26, and
so does this benchmark by default). This plays exactly that (the same plan, run and table as the command, into a fresh
temporary folder deleted afterwards) R times and prints, per run and as the median: the wall time
(plan, play, table), the games played and their rate, and the achieved precision — the largest
and the median half-width over all value rows and how many rows meet the target. The compiled
kernels are loaded before the timing starts (a cold compile is a one-time cost of an install,
shown by `lab bench`). Nothing is asserted: it is a measurement, and the machine it runs on may
be shared.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from lab.design import value
from lab.sim.config import load_experiment

CONFIG = Path(__file__).resolve().parent.parent / "configs" / "default.toml"
TARGET = 2.0  # points: the 95% half-width issue 12 asks for, per card
LIMIT_S = 600.0  # within 10 minutes


def one_run(config: Path, games: int, tier: str, jobs: int) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="lab-bench-value-"))
    try:
        t0 = time.perf_counter()
        plan = value.plan(load_experiment(config, games=games), tiers=[tier])
        t1 = time.perf_counter()
        result = value.run(plan, folder, jobs=jobs)
        t2 = time.perf_counter()
        table = value.compute(plan, folder)
        t3 = time.perf_counter()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    half = (table["hi"] - table["lo"]) / 2 * 100
    return {
        "total_s": t3 - t0,
        "plan_s": t1 - t0,
        "run_s": t2 - t1,
        "table_s": t3 - t2,
        "games": result.played,
        "games_per_s": result.played / (t2 - t1),
        "rows": len(table),
        "cards": int(table[["army", "card_id"]].drop_duplicates().shape[0]),
        "max_half_width": float(half.max()),
        "median_half_width": float(half.median()),
        "rows_within_target": int((half <= TARGET).sum()),
    }


def warm_up(config: Path, tier: str, jobs: int) -> None:
    """Load (or compile) the kernels and start the worker processes, untimed."""
    folder = Path(tempfile.mkdtemp(prefix="lab-bench-value-"))
    try:
        plan = value.plan(load_experiment(config, games=1), cards=["刺客"], tiers=[tier])
        value.run(plan, folder, jobs=jobs)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def measure(config: Path, games: int, runs: int, tier: str, jobs: int, progress=print) -> dict:
    warm_up(config, tier, jobs)
    found = []
    for r in range(runs):
        found.append(one_run(config, games, tier, jobs))
        x = found[-1]
        progress(
            f"run {r + 1}/{runs}: {x['total_s']:.1f} s ({x['games']:,} games, "
            f"{x['games_per_s']:,.0f} games/s), half-width ≤ {x['max_half_width']:.2f} "
            f"points (median {x['median_half_width']:.2f}), {x['rows_within_target']}/"
            f"{x['rows']} rows within {TARGET:g}"
        )
    med = {k: statistics.median(x[k] for x in found) for k in found[0]}
    return {
        "config": str(config),
        "games_per_cell": games,
        "tier": tier,
        "jobs": jobs,
        "runs": runs,
        "target_points": TARGET,
        "limit_s": LIMIT_S,
        "median": med,
        "all": found,
    }


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", type=Path, default=CONFIG, help="experiment file")
    ap.add_argument(
        "--games",
        type=int,
        default=300,
        help="deals per cell (default 300: measured to put every row within 2 "
        "points, the largest half-width about 1.6)",
    )
    ap.add_argument("--runs", type=int, default=3, help="runs (the median is shown)")
    ap.add_argument(
        "--tier",
        default="tuned",
        help="bot tier of the config (default tuned, the config's; `--config` a copy "
        "with bots = \"heuristic\" to measure the plain heuristic)",
    )
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--json", action="store_true", help="print JSON only")
    a = ap.parse_args()
    r = measure(
        a.config, a.games, a.runs, a.tier, a.jobs, progress=(lambda m: None) if a.json else print
    )
    if a.json:
        print(json.dumps(r, indent=2))
    else:
        m = r["median"]
        ok = m["max_half_width"] <= TARGET and m["total_s"] <= LIMIT_S
        print(
            f"lab value {a.config} --tier {a.tier} --games {a.games} --jobs {a.jobs}: "
            f"median of {a.runs} run(s)"
        )
        print(
            f"  {m['cards']:.0f} cards, {m['rows']:.0f} rows, {m['games']:,.0f} games in "
            f"{m['total_s']:.1f} s (play {m['run_s']:.1f} s at {m['games_per_s']:,.0f} "
            f"games/s, table {m['table_s']:.1f} s)"
        )
        print(
            f"  95% half-width: at most {m['max_half_width']:.2f} points, median "
            f"{m['median_half_width']:.2f}; {m['rows_within_target']:.0f}/{m['rows']:.0f} "
            f"rows within {TARGET:g}"
        )
        print(
            f"  target (every row within {TARGET:g} points in {LIMIT_S / 60:.0f} min): "
            f"{'reached' if ok else 'NOT reached'}"
        )
