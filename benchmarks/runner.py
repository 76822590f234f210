"""Runner throughput: `python benchmarks/runner.py [--games N] [--runs R] [--json]`.

Plays the same random-vs-random games (all nine armies round robin, second edition, N deals
per ordered pair) through `lab.sim.runner.run` with recording on — games/ and cards/ Parquet
chunks written as in any `lab run` — on 1 worker and on 2 workers, R times each, and prints the
median games/s of each and their ratio (issue 6 asks for ≥ 1.8). The play phase is timed
(dispatch of the first chunk to the last chunk written); the worker processes are started by an
untimed warm-up run first, as they are once per `lab run`. It also times the engine alone on one
core (no seeding, no records) to show what recording costs. Each run writes to a fresh temporary
folder that is deleted afterwards.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from lab.schema.experiment import DEFAULT_CHUNK
from lab.sim.config import from_dict
from lab.games.daitenka.plan import jobs as plan_jobs
from lab.sim.runner import run
from lab.games.daitenka.worker import _batch, _context, seeds_for


def experiment(games: int, chunk: int):
    return from_dict(
        {
            "name": "bench",
            "seed": 1,
            "games": games,
            "rules": "second_edition",
            "armies": "all",
            "bots": "random",
            "chunk_size": chunk,
        },
        "bench",
    )


def timed_run(exp, jobs: int) -> float:
    """games/s of the play phase of one run into a fresh folder."""
    folder = Path(tempfile.mkdtemp(prefix="lab-bench-runner-"))
    try:
        result = run(exp, folder / "out", jobs=jobs)
        assert result.played == exp.total_games
        return result.games_per_s
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def engine_only(exp) -> float:
    """games/s of the compiled loop alone on one core, same games, seeds made beforehand."""
    work = [(j, seeds_for(j)) for j in plan_jobs(exp)]
    batch = _batch()
    t = time.perf_counter()
    for j, seeds in work:
        ctx, *_ = _context(j.variant, j.army_a, j.army_b)
        batch.play(ctx, seeds, j.tier.a, j.tier.b)
    return exp.total_games / (time.perf_counter() - t)


def measure(games: int, runs: int, chunk: int, progress=print) -> dict:
    exp = experiment(games, chunk)
    timed_run(experiment(20, chunk), 1)  # compile or load the kernels in this process
    timed_run(experiment(20, chunk), 2)  # start the two worker processes
    out: dict = {"games": exp.total_games, "chunk_size": chunk, "runs": runs}
    rates: dict[int, list[float]] = {1: [], 2: []}
    for r in range(runs):  # interleaved, so a busy moment of the machine hits both
        for jobs in (1, 2):
            rates[jobs].append(timed_run(exp, jobs))
            progress(f"{jobs} worker(s), run {r + 1}/{runs}: {rates[jobs][-1]:,.0f} games/s")
    for jobs, found in rates.items():
        out[f"jobs{jobs}_games_per_s"] = statistics.median(found)
        out[f"jobs{jobs}_all"] = [round(x) for x in found]
    out["ratio"] = out["jobs2_games_per_s"] / out["jobs1_games_per_s"]
    engine = statistics.median(engine_only(exp) for _ in range(runs))
    out["engine_only_games_per_s"] = engine
    out["recording_share_one_worker"] = 1 - out["jobs1_games_per_s"] / engine
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=3000, help="deals per ordered pair (× 81)")
    ap.add_argument("--runs", type=int, default=3, help="runs per figure (the median is shown)")
    ap.add_argument(
        "--chunk-size",
        type=int,
        default=DEFAULT_CHUNK,
        help=f"games per chunk (default {DEFAULT_CHUNK}, as in lab run)",
    )
    ap.add_argument("--json", action="store_true", help="print JSON only")
    a = ap.parse_args()
    r = measure(a.games, a.runs, a.chunk_size, progress=(lambda m: None) if a.json else print)
    if a.json:
        print(json.dumps(r, indent=2))
    else:
        print(f"{r['games']:,} random games, recording on, median of {r['runs']} runs:")
        print(f"  1 worker : {r['jobs1_games_per_s']:,.0f} games/s")
        print(f"  2 workers: {r['jobs2_games_per_s']:,.0f} games/s")
        print(f"  ratio    : {r['ratio']:.2f} (issue 6 asks for ≥ 1.8)")
        print(
            f"  engine alone, 1 core: {r['engine_only_games_per_s']:,.0f} games/s — seeding "
            f"and records take {r['recording_share_one_worker']:.0%} of a worker's time"
        )
