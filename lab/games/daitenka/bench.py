"""Engine speed: random-vs-random full games per preset on one core (issue: lab bench), and the
speed of the heuristic, tuned and strong bots playing themselves (``bot_speed``).

Measures games/s, decisions/s and decisions per game over all nine armies round robin, and the
cold compile and cached start times of a fresh process (the cold compile once by default: it
takes about 20 s on 2 cores; its temporary cache is removed); each figure is the median of its
runs. A decision is one step of the scenario grammar applied by the engine. It reports; it asserts
nothing (targets live in the closing notes, not in tests).
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from lab.games.daitenka.cards.pool import load_armies, load_pool
from lab.games.daitenka.engine import nb_play
from lab.games.daitenka.engine.context import matchup_context
from lab.games.daitenka.engine.layout import N_ST, NL
from lab.errors import LabError
from lab.games.daitenka.rules import PRESETS

_STARTUP = (
    "import time; t = time.perf_counter(); "
    "from lab.games.daitenka.engine.api import play_random_game; "
    "play_random_game('second_edition', 'oda', 'seigun', seed=1); "
    "print(time.perf_counter() - t)"
)
# what the first `lab run` of a heuristic experiment waits for on an empty cache: the engine and
# the heuristic, compiled on every core (lab.games.daitenka.bots.compile), then one game
_COLD = (
    "import time; t = time.perf_counter(); "
    "from lab.games.daitenka.bots.compile import ensure_compiled; ensure_compiled(); "
    "from lab.games.daitenka.bots.match import play_batch; from lab.games.daitenka.cards.pool import load_army, load_pool; "
    "from lab.games.daitenka.engine.context import matchup_context; from lab.games.daitenka.rules import RuleSet; "
    "import numpy as np; pool = load_pool(); "
    "c = matchup_context(pool, RuleSet(), load_army('oda', pool), load_army('seigun', pool)); "
    "play_batch(c, np.ones((1, 12), np.int64), 'heuristic', 'heuristic'); "
    "print(time.perf_counter() - t)"
)


def _contexts(preset: str):
    pool = load_pool()
    armies = load_armies(pool)
    rules = PRESETS[preset]
    return [matchup_context(pool, rules, a, b) for a in armies for b in armies]


def time_games(preset: str, games: int, seed: int = 0) -> tuple[float, int, int]:
    """Seconds, games and decisions for ``games`` random games spread over all army pairs."""
    ctxs = _contexts(preset)
    rng = np.random.default_rng(seed)
    per = -(-games // len(ctxs))
    batches = [(c, rng.integers(1, 2**32, size=(per, 12)).astype(np.int64)) for c in ctxs]
    res = np.zeros((per, nb_play.N_RES), np.int64)
    stats = np.zeros((per, N_ST * NL), np.int32)
    nb_play.run_random(ctxs[0], batches[0][1][:1], res[:1], stats[:1])  # compiled or loaded
    decisions = 0
    t = time.perf_counter()
    for c, seeds in batches:
        nb_play.run_random(c, seeds, res, stats)
        decisions += int(res[:, nb_play.RES_DECISIONS].sum())
    return time.perf_counter() - t, per * len(ctxs), decisions


BOTS = ("heuristic", "tuned", "strong")  # the bots whose own speed `lab bench` prints


def time_bot(
    bot: str, games: int, seed: int = 0, preset: str = "second_edition"
) -> tuple[float, int]:
    """Seconds and games for about ``games`` games of ``bot`` against itself over all army
    pairs, through the batch runs' match loop (one core)."""
    from lab.games.daitenka.bots.match import Batch, parse_bot

    spec = parse_bot(bot)
    ctxs = _contexts(preset)
    rng = np.random.default_rng(seed)
    per = -(-games // len(ctxs))
    batches = [(c, rng.integers(1, 2**32, size=(per, 12)).astype(np.int64)) for c in ctxs]
    batch = Batch()
    batch.play(ctxs[0], batches[0][1][:1], spec, spec)  # compiled or loaded
    t = time.perf_counter()
    for c, seeds in batches:
        batch.play(c, seeds, spec, spec)
    return time.perf_counter() - t, per * len(ctxs)


def bot_speed(bots=BOTS, games: int = 4_000, runs: int = 3, progress=None, status=None) -> dict:
    """Median games/s of each bot against itself (second edition, one core), and its ratio to
    the first bot's (the heuristic's) measured in the same run."""
    if games < 1 or runs < 1:
        raise LabError(
            f"--bot-games {games}, --runs {runs}: whole numbers ≥ 1 (--bot-games 0 skips the bots)"
        )
    status = status or (lambda message: contextlib.nullcontext())
    progress = progress or (lambda message: None)
    rates: dict[str, list[float]] = {b: [] for b in bots}
    ratios: dict[str, list[float]] = {b: [] for b in bots}
    for r in range(runs):
        for b in bots:
            with status(f"{b}: run {r + 1} of {runs}, {games:,} games against itself"):
                secs, n = time_bot(b, games, seed=r)
            rates[b].append(n / secs)
            ratios[b].append(rates[b][-1] / rates[bots[0]][-1])
            progress(f"{b} run {r + 1}/{runs}: {n / secs:,.0f} games/s")
    return {
        b: {"games_per_s": statistics.median(rates[b]), "vs_first": statistics.median(ratios[b])}
        for b in bots
    }


def startup_seconds(cold: bool) -> float:
    """Time for a fresh process to import the engine and play one game: with an empty numba
    cache (cold: the engine and the heuristic compile, on every core, as for the first `lab run`;
    the cache is a temporary folder, removed afterwards) or with the cache the previous run left
    (cached start)."""
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    with contextlib.ExitStack() as stack:
        if cold:
            env["NUMBA_CACHE_DIR"] = stack.enter_context(
                tempfile.TemporaryDirectory(prefix="lab-bench-cache-")
            )
        out = subprocess.run(
            [sys.executable, "-c", _COLD if cold else _STARTUP],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    return float(out.stdout.strip().splitlines()[-1])


def run(
    presets=None,
    games: int = 20_000,
    runs: int = 3,
    compile_runs: int = 1,
    start_runs: int = 3,
    progress=None,
    status=None,
) -> dict:
    """Median speed per preset, and the cold compile and cached start times of a fresh process.

    ``progress(message)`` is told each result as it comes; ``status(message)`` is a context
    manager that shows what is running (and for how long) around each step."""
    if games < 1 or runs < 1 or compile_runs < 0 or start_runs < 0:
        raise LabError(
            f"--games {games}, --runs {runs}, --compile-runs {compile_runs}, "
            f"--start-runs {start_runs}: games and runs need whole numbers ≥ 1, "
            "compile and start runs ≥ 0"
        )
    presets = list(presets or PRESETS)
    status = status or (lambda message: contextlib.nullcontext())
    progress = progress or (lambda message: None)
    out: dict = {}
    for preset in presets:
        rows = []
        for r in range(runs):
            with status(f"{preset}: run {r + 1} of {runs}, {games:,} games"):
                secs, n, dec = time_games(preset, games, seed=r)
            rows.append((n / secs, dec / secs, dec / n))
            progress(f"{preset} run {r + 1}/{runs}: {n / secs:,.0f} games/s")
        out[preset] = {
            "games_per_s": statistics.median(x[0] for x in rows),
            "decisions_per_s": statistics.median(x[1] for x in rows),
            "decisions_per_game": statistics.median(x[2] for x in rows),
        }
    compile_s = cached_s = None
    if compile_runs:
        times = []
        for r in range(compile_runs):
            with status(
                f"cold compile {r + 1} of {compile_runs}: a fresh process with an empty "
                "cache compiles the engine and the heuristic on every core"
            ):
                times.append(startup_seconds(cold=True))
            progress(f"cold compile {r + 1}/{compile_runs}: {times[-1]:.1f} s")
        compile_s = statistics.median(times)
    if start_runs:
        with status("cached start: a fresh process loading the compiled engine"):
            startup_seconds(cold=False)  # make sure the shared cache is warm
            times = [startup_seconds(cold=False) for _ in range(start_runs)]
        progress(f"cached start: {statistics.median(times):.2f} s (median of {start_runs})")
        cached_s = statistics.median(times)
    for preset in presets:
        out[preset]["compile_s"] = compile_s
        out[preset]["cached_start_s"] = cached_s
    return out
