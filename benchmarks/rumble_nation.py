"""Rumble Nation speed and bot strength, as a benchmark — never a timed test.

    python benchmarks/rumble_nation.py [--games N] [--runs R] [--compile-runs K] [--deals D]
                                       [--search-deals S] [--skip-ladder]

Prints JSON:
- ``speed``: random-vs-random full games per second on one core for each preset (2, 3, 4 players
  and the advanced rule), median of R runs of N games each, with decisions per second; and the
  heuristic's and the default search's games per second in 2-player play;
- ``compile``: a fresh process importing the package and playing one game with every bot kind —
  cold (an empty numba cache: everything compiles) and cached start, medians of K runs;
- ``ladder``: heuristic vs random (2, 3 and 4 players) and search vs heuristic (2 and 4 players):
  the bot in every seat in turn on D deals (S for 2-player search, S/5 for 4-player), win rate
  with a 95% interval clustered by deal (``lab.games.rumble_nation.ladder``) and the fair share.
The machine may be shared: compare figures measured in one run, and prefer medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from lab.games.rumble_nation import PRESETS, seeds_for
from lab.games.rumble_nation.batch import Buffers, play_rows
from lab.games.rumble_nation.ladder import head_to_head
from lab.games.rumble_nation.nb_layout import R_DECISIONS

_STARTUP = (
    "import time; t = time.perf_counter(); "
    "from lab.games.rumble_nation import PRESETS, play_batch, seeds_for; "
    "play_batch(PRESETS['base_2p'], ['random', {'kind': 'search', 'simulations': 1}], "
    "seeds_for(1)); "
    "print(time.perf_counter() - t)"
)


def games_per_s(preset: str, bots, games: int, seed: int) -> tuple[float, float]:
    """(games/s, decisions/s) for ``games`` games of ``preset`` with ``bots``."""
    rules = PRESETS[preset]
    words = seeds_for(games, seed)
    buf = Buffers()
    play_rows(rules, bots, words[:1], buffers=buf)  # compiled or loaded before the clock
    t = time.perf_counter()
    rows = play_rows(rules, bots, words, buffers=buf)
    dt = time.perf_counter() - t
    return games / dt, float(rows[:, R_DECISIONS].sum()) / dt


def startup_seconds(cold: bool) -> float:
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    if cold:
        env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="rn-bench-cache-")
    out = subprocess.run(
        [sys.executable, "-c", _STARTUP], env=env, capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip().splitlines()[-1])


def speed(games: int, runs: int) -> dict:
    out = {}
    for preset, rules in PRESETS.items():
        rows = [games_per_s(preset, ["random"] * rules.players, games, seed=r) for r in range(runs)]
        out[preset] = {
            "players": rules.players,
            "random_games_per_s": statistics.median(g for g, _ in rows),
            "random_decisions_per_s": statistics.median(d for _, d in rows),
            "runs": [round(g) for g, _ in rows],
        }
    out["base_2p"]["heuristic_games_per_s"] = statistics.median(
        games_per_s("base_2p", ["heuristic"] * 2, max(1, games // 50), seed=r)[0]
        for r in range(runs)
    )
    out["base_2p"]["search_vs_heuristic_games_per_s"] = statistics.median(
        games_per_s("base_2p", ["search", "heuristic"], max(1, games // 5000), seed=r)[0]
        for r in range(runs)
    )
    return out


def ladder(deals: int, search_deals: int) -> list[dict]:
    pairs = [
        ("base_2p", "heuristic", "random", deals),
        ("base_3p", "heuristic", "random", deals),
        ("base_4p", "heuristic", "random", deals),
        ("base_2p", "search", "heuristic", search_deals),
        ("base_4p", "search", "heuristic", max(1, search_deals // 5)),
    ]
    out = []
    for preset, bot, against, d in pairs:
        t = time.perf_counter()
        h = head_to_head(PRESETS[preset], bot, against, deals=d, seed=2024)
        out.append(h.as_dict() | {"seconds": round(time.perf_counter() - t, 1)})
        print(h, file=sys.stderr)
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--games", type=int, default=200_000, help="random games per speed run")
    ap.add_argument("--runs", type=int, default=5, help="speed runs per preset (median)")
    ap.add_argument("--compile-runs", type=int, default=3, help="fresh processes (median)")
    ap.add_argument("--deals", type=int, default=2000, help="deals per heuristic-vs-random pair")
    ap.add_argument("--search-deals", type=int, default=1000, help="deals per search pair")
    ap.add_argument("--skip-ladder", action="store_true")
    a = ap.parse_args(argv)
    out = {"speed": speed(a.games, a.runs)}
    if a.compile_runs > 0:
        cold = statistics.median(startup_seconds(cold=True) for _ in range(a.compile_runs))
        startup_seconds(cold=False)  # the shared cache is warm
        cached = statistics.median(startup_seconds(cold=False) for _ in range(a.compile_runs))
        out["compile"] = {"cold_s": cold, "cached_start_s": cached}
    if not a.skip_ladder:
        out["ladder"] = ladder(a.deals, a.search_deals)
    return out


if __name__ == "__main__":
    print(json.dumps(main(), indent=2, ensure_ascii=False))
