"""How well a balance search's rounds use the cores: `python benchmarks/balance_rounds.py
[--rounds N] [--jobs J] [--config PATH] [--json]`.

A search round plays tens of short runner calls (one per deal block and set of pairs: the
screening of a new edit set touches only its armies' pairs), each with its own bookkeeping — a
manifest, a lock, the records written and read back — while the workers wait. This plays the
first N rounds of `lab balance CONFIG` (its default tiers; the rounds depend only on what was
measured, so every version of the code plays the same games) and prints the wall time, the
games per second and the cores the workers kept busy (from /proc: Linux only), next to the
search's own process. The kernels are loaded and the workers started before the clock starts.
Nothing is asserted: compare two versions in one sitting, on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from balance import CONFIG, warm_up  # benchmarks/balance.py, beside this file
from lab.design import balance as design
from lab.design.balance_search import Search
from lab.sim.config import load_experiment


def worker_seconds() -> float | None:
    """CPU seconds the loky worker processes have used so far (None off Linux)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for p in proc.iterdir():
        if not p.name.isdigit():
            continue
        try:
            if b"LokyProcess" not in (p / "cmdline").read_bytes():
                continue
            fields = (p / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    return total


def measure(config: Path, rounds: int, jobs: int) -> dict:
    plan = design.plan(load_experiment(config))
    warm_up(config, None, jobs)  # the default tiers, as plan
    folder = Path(tempfile.mkdtemp(prefix="lab-bench-rounds-"))
    try:
        s = Search(plan.exp, plan.moves, plan.settings, folder, tiers=plan.tiers, jobs=jobs)
        s.run_round()  # the first round starts the workers on this search's tiers: untimed
        w0, c0, t0 = worker_seconds(), time.process_time(), time.perf_counter()
        g0 = s.played()
        for _ in range(rounds):
            s.run_round()
        wall = time.perf_counter() - t0
        w1, c1 = worker_seconds(), time.process_time()
        games = s.played() - g0
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "config": str(config),
        "rounds": rounds,
        "jobs": jobs,
        "load_average": os.getloadavg(),
        "wall_s": wall,
        "games": games,
        "games_per_s": games / wall,
        "workers_busy_cores": None if w0 is None else (w1 - w0) / wall,
        "search_process_cores": (c1 - c0) / wall,
    }


def report(r: dict) -> None:
    busy = r["workers_busy_cores"]
    print(
        f"{r['rounds']} search rounds of lab balance {r['config']} on {r['jobs']} workers "
        f"(load average {', '.join(f'{x:.1f}' for x in r['load_average'])}): "
        f"{r['games']:,} games in {r['wall_s']:.1f} s ({r['games_per_s']:,.0f} games/s); "
        + (f"workers busy {busy:.2f} of {r['jobs']} cores; " if busy is not None else "")
        + f"the search's own process {r['search_process_cores']:.2f} of a core"
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=6, help="Search rounds timed (default 6).")
    ap.add_argument("--jobs", type=int, default=2, help="Worker processes (default 2).")
    ap.add_argument("--config", type=Path, default=CONFIG, help="Config (default: default.toml).")
    ap.add_argument("--json", action="store_true", help="Print the figures as JSON.")
    a = ap.parse_args()
    result = measure(a.config, a.rounds, a.jobs)
    print(json.dumps(result, indent=2)) if a.json else report(result)
