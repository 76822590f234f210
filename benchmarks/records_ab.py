"""Same config, same seed, same records? The records of two or more checkouts compared.

    git worktree add --detach /tmp/old COMMIT     # a checkout of the version to compare with
    python benchmarks/records_ab.py /tmp/old . [MORE …] [--config FILE …]

Each checkout runs ``lab run CONFIG --jobs 1`` in its own process (PYTHONPATH = the checkout,
its own numba cache) into a temporary folder, for every config given (default: a small 大天下
config with three bot tiers (no strong bot: older checkouts lack it), two wall counts and seat swaps, and a small Rumble Nation config
with two player counts and reroll on and off); then every records table (Parquet) of each run is compared with the
first checkout's, row for row. Prints one line per config and checkout and exits 1 if any table
differs: a refactor that claims "nothing changes for users" (issue 28) is checked here.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

DAITENKA = """name = "ab_daitenka"
seed = 7
games = 3
rules = "second_edition"
armies = ["oda", "takeda", "mouri"]
seat_swap = true
tiers = ["random", "tuned", { kind = "search", simulations = 12 }]
[grid]
walls = [6, 7]
"""

RUMBLE = """name = "ab_rumble"
game = "rumble_nation"
seed = 7
games = 20
rules = ["base_2p", "base_3p"]
bots = "heuristic"
[grid]
reroll = [true, false]
"""


def run(tree: Path, config: Path, out: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_CACHE_DIR=str(out.parent / "numba"))
    done = subprocess.run(
        [sys.executable, "-m", "lab.cli", "run", str(config), "--out", str(out), "--jobs", "1"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"{tree}: lab run {config.name} failed:\n{done.stderr[-2000:]}")


def tables(out: Path) -> dict[str, pd.DataFrame]:
    """Every Parquet table of a results folder, keyed by its kind (the folder it is in)."""
    found: dict[str, list[Path]] = {}
    for f in sorted(out.rglob("*.parquet")):
        found.setdefault(f.parent.relative_to(out).as_posix(), []).append(f)
    return {
        k: pd.concat([pd.read_parquet(f) for f in fs], ignore_index=True) for k, fs in found.items()
    }


def main(argv: list[str]) -> int:
    configs: list[Path] = []
    while "--config" in argv:
        k = argv.index("--config")
        configs.append(Path(argv[k + 1]).resolve())
        del argv[k : k + 2]
    if len(argv) < 2:
        sys.exit(__doc__)
    trees = [Path(t).resolve() for t in argv]
    work = Path(tempfile.mkdtemp(prefix="lab-records-ab-"))
    if not configs:
        for name, text in (("ab_daitenka.toml", DAITENKA), ("ab_rumble.toml", RUMBLE)):
            (work / name).write_text(text, encoding="utf-8")
            configs.append(work / name)
    differ = False
    for config in configs:
        first = None
        for i, tree in enumerate(trees):
            out = work / f"tree{i}" / config.stem
            out.parent.mkdir(parents=True, exist_ok=True)
            run(tree, config, out)
            got = tables(out)
            if first is None:
                first = got
                rows = sum(len(t) for t in got.values())
                print(f"{config.name}: {tree} — {len(got)} tables, {rows:,} rows (the reference)")
                continue
            bad = sorted(
                k
                for k in first.keys() | got.keys()
                if k not in first or k not in got or not first[k].equals(got[k])
            )
            differ |= bool(bad)
            print(
                f"{config.name}: {tree} — "
                + (f"DIFFERS in {', '.join(bad)}" if bad else "identical records")
            )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
