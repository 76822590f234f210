"""Does a cheaper search rate the armies as search(400) does?
`python benchmarks/search_budget.py [--simulations 100] [--games 100] [--seed 777001]
[--patch FILE.toml …] [--jobs 2]`

`lab balance`'s strong tier spends most of a search's minutes: at search(400) a 30-minute search
measures a candidate at the strong tier on ~128 games per army (±4.4 points) and the surrogate's
view of that tier misses the sets it finally polishes by 4–5 points per army
(docs/balancing.md). A search with fewer simulations is that many times cheaper; what matters
for balance work is not whether it plays as well but whether it puts the *armies* where
search(400) puts them. This plays the same deals (the config's seed; the deal shuffles depend only
on the seed and the pair) at search(N) and at search(400), for the decks as written and for each
`[[patch]]` of the given files (a proposal's TOML from `lab balance`'s balance.json, pasted into a
file), and prints per deck set and army both win rates and their difference with a 95% interval
(search(400)'s − the cheaper one's) clustered by deal (`lab.stats.skill.skill_split`: the
tiers share the deals), the root mean
square of the differences against what their noise alone would give, and each tier's games per
second (timed in the same run, one tier after the other). Nothing is asserted: it is a
measurement on a possibly shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd

from lab.sim import runner
from lab.sim.config import load_experiment
from lab.stats.records import load
from lab.stats.skill import skill_split

REFERENCE = 400  # the search tier a designer confirms at (bots = "search")


def config_text(seed: int, games: int, simulations: int, patches: list[str]) -> str:
    names = [p["name"] for text in patches for p in tomllib.loads(text).get("patch", [])]
    grid = (
        f"[grid]\npatch = {json.dumps(['base', *names], ensure_ascii=False)}\n\n" if names else ""
    )
    return (
        f'name = "search-budget"\nseed = {seed}\ngames = {games}\nrules = "second_edition"\n'
        f'armies = "all"\nbots = {{ kind = "search", simulations = {simulations} }}\n\n'
        + grid
        + "\n".join(patches)
    )


def play(folder: Path, text: str, jobs: int) -> tuple[pd.DataFrame, float]:
    """(games, seconds) of the config ``text`` run in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.toml"
    path.write_text(text, encoding="utf-8")
    exp = load_experiment(path)
    start = time.perf_counter()
    runner.run(exp, folder / "out", jobs=jobs)
    seconds = time.perf_counter() - start
    return load(folder / "out", cards=False).games, seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--simulations", type=int, default=100)
    ap.add_argument("--games", type=int, default=100, help="deals per ordered pair of armies")
    ap.add_argument("--seed", type=int, default=777001)
    ap.add_argument(
        "--reference", type=int, default=REFERENCE, help="the search it is compared with"
    )
    ap.add_argument("--patch", action="append", default=[], help="a TOML file of [[patch]]s")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    patches = [Path(p).read_text(encoding="utf-8") for p in args.patch]
    root = Path(tempfile.mkdtemp(prefix="lab-bench-search-budget-"))
    try:
        # compile the kernels untimed
        play(root / "warm", config_text(args.seed, 1, 8, []), args.jobs)
        frames, speed, tiers = [], {}, []
        for sims in (args.simulations, args.reference):
            text = config_text(args.seed, args.games, sims, patches)
            games, seconds = play(root / f"s{sims}", text, args.jobs)
            # two runs number their games alike; the comparison pairs them by deal, not by id
            offset = sum(len(f) for f in frames)
            frames.append(games.assign(game_id=games["game_id"] + offset))
            speed[sims] = len(games) / seconds
            tiers.append(games["tier"].iloc[0])
        report(pd.concat(frames, ignore_index=True), tiers, speed, args)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def report(games: pd.DataFrame, tiers: list[str], speed: dict, args) -> None:
    """``tiers``: the cheaper search's tier label, then the reference's."""
    cheap, ref = tiers
    split = skill_split(games, order=tiers)
    print(
        f"search({args.simulations}) against search({args.reference}), seed {args.seed}, "
        f"{args.games} deals per ordered pair, load average {os.getloadavg()[0]:.1f}"
    )
    for s, v in speed.items():
        print(f"  search({s}): {v:,.1f} games/s on {args.jobs} worker(s)")
    print(f"  speed ratio: {speed[args.simulations] / speed[args.reference]:.2f}×")
    diffs, noise = [], []
    ref_name, cheap_name = f"s{args.reference}", f"s{args.simulations}"
    head = f"{ref_name} − {cheap_name} [95%]"
    for variant, part in split.groupby("variant", sort=False):
        print(f"\n{variant}")
        print(f"  {'army':8} {cheap_name:>7} {ref_name:>7} {head:>24}")
        for _, r in part.iterrows():
            d = 100 * r["skill_sensitivity"]
            lo, hi = 100 * r["skill_sensitivity_lo"], 100 * r["skill_sensitivity_hi"]
            print(
                f"  {r['army']:8} {100 * r[f'value@{cheap}']:6.1f}% {100 * r[f'value@{ref}']:6.1f}%"
                f" {d:+8.1f} [{lo:+5.1f}, {hi:+5.1f}]"
            )
            diffs.append(d)
            noise.append((hi - lo) / (2 * 1.96))
    diffs, noise = np.array(diffs), np.array(noise)
    flagged = int(split["skill_flag"].fillna(False).sum())
    print(
        f"\nover {len(diffs)} army rates: rms difference {np.sqrt(np.mean(diffs**2)):.2f} points; "
        f"noise alone would give about {np.sqrt(np.mean(noise**2)):.2f}; "
        f"{flagged} difference(s) pass Benjamini–Hochberg at 5%"
    )


if __name__ == "__main__":
    main()
