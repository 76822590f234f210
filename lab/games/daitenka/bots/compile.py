"""Compile the kernels a run needs before its first game: only those, and on every core.

A cold start compiles the engine and the bots into numba's cache (lab.jit). Left to the
first game, one process compiles every kernel the match loop can reach, search and expert
included, one after another. Here the kernels fall into groups of about equal compile time —
the rules (``apply`` and set-up); the bots' picks (the heuristic's, then the random bot's,
which reuses the legal-step plan the heuristic's compiled); and (only when a seat searches) the
search and the expert — and each group is compiled by its own process into the shared cache,
two at once on two cores or more; the caller's own first game then loads them and compiles only
the loop around them. Side by side on two cores the two groups take 15 and 17 s (rules with the
random pick | the heuristic's pick: 19 and 14 s). A warm cache costs one look at its files.

Compiled or not, the games are the same: this only decides when and where compiling happens.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

# group → kernels (module, function, argument maker); each compiled with the argument types
# the match loop calls it with
GROUPS = {
    "rules": ("apply", "setup"),
    "picks": ("heuristic_pick", "random_pick"),
    "search": ("search_choose", "expert_choose"),
    "basic_loop": ("run_batch_basic",),
}
LOOPS = {"basic": "run_batch_basic", "search": "run_batch"}


def _kernels():
    from lab.games.daitenka.bots import nb_expert, nb_heuristic, nb_match, nb_search
    from lab.games.daitenka.engine import nb_actions, nb_pick, nb_play, nb_resolve

    return {
        "apply": nb_resolve.apply,
        "setup": nb_play.setup,
        "legal_actions": nb_actions.legal_actions,
        "random_pick": nb_pick.random_pick,
        "heuristic_pick": nb_heuristic.heuristic_pick,
        "search_choose": nb_search.search_choose,
        "expert_choose": nb_expert.expert_choose,
        "run_batch_basic": nb_match.run_batch_basic,
        "run_batch": nb_match.run_batch,
    }


def _arguments(name: str) -> tuple:
    """Arrays of the types the match loop passes (their values do not matter: only typed)."""
    import numpy as np

    from lab.games.daitenka.bots.nb_buffer import SB_SIZE
    from lab.games.daitenka.bots.nb_params import BP_SIZE
    from lab.games.daitenka.engine import layout as L
    from lab.games.daitenka.engine.nb_actions import WK_SIZE
    from lab.games.daitenka.engine.nb_play import N_RES

    z = np.zeros
    s, c = z(L.S_SIZE, np.int64), z(L.C_SIZE, np.int64)
    lg, acts, wk = z((1, L.LW), np.int64), z((L.MAXA, L.AW), np.int64), z(WK_SIZE, np.int64)
    bot, sb, sacts = z(BP_SIZE, np.int64), z(SB_SIZE, np.int64), z((L.MAXA, L.AW), np.int64)
    n = np.int64(1)
    loop = (
        s,
        c,
        lg,
        acts,
        wk,
        z((1, L.N_SEED_WORDS), np.int64),
        z((2, BP_SIZE), np.int64),
        sb,
        sacts,
        z((1, N_RES), np.int64),
        z((1, L.N_ST * L.NL), np.int32),
    )
    return {
        "apply": (s, c, lg, acts[0]),
        "setup": (s, c, lg, z(L.N_SEED_WORDS, np.int64)),
        "legal_actions": (s, c, acts, wk),
        "random_pick": (s, c, acts, wk),
        "heuristic_pick": (s, c, acts, wk, bot),
        "search_choose": (s, c, lg, acts, n, wk, bot, sb, sacts),
        "expert_choose": (s, c, lg, acts, n, wk, bot, sb, sacts),
        "run_batch_basic": loop,
        "run_batch": loop,
    }[name]


def compile_kernel(name: str) -> None:
    """Compile one kernel for the types the match loop uses (no game is played)."""
    import numba

    kernel = _kernels()[name]
    if hasattr(kernel, "compile"):  # not under NUMBA_DISABLE_JIT=1, where kernels are Python
        kernel.compile(tuple(numba.typeof(a) for a in _arguments(name)))


def is_cached(name: str) -> bool:
    """Does numba's cache hold kernel ``name`` (a file of its index)?"""
    from lab import jit

    if os.environ.get("NUMBA_DISABLE_JIT") == "1":
        return True
    cache = Path(jit.numba.config.CACHE_DIR)
    return next(cache.rglob(f"*.{name}-*.nbi"), None) is not None if cache.exists() else False


def _spawn(group: str) -> subprocess.Popen:
    code = (
        "import sys; from lab.games.daitenka.bots.compile import GROUPS, compile_kernel\n"
        f"for k in GROUPS[{group!r}]: compile_kernel(k)\n"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )


def ensure_compiled(search: bool = False, jobs: int | None = None, both: bool = False) -> float:
    """Make sure the cache holds the match loop a run needs (with the search kernels if a seat
    searches), compiling its groups in parallel processes first; then compile (or load) the
    loop here. ``both`` (with ``search``): the heuristics-only loop as well, compiled beside the
    search group (the test session plays both). Returns the seconds spent."""
    t = time.perf_counter()
    loop = LOOPS["search" if search else "basic"]
    wanted = [loop] + ([LOOPS["basic"]] if both and search else [])
    if not all(is_cached(k) for k in wanted):
        # one compiling process tree per cache: a second run (or Dask worker) on this machine
        # waits, then loads what the first compiled
        with _cache_lock():
            if not all(is_cached(k) for k in wanted):
                jobs = max(1, min(jobs or os.cpu_count() or 1, 2))
                if jobs > 1:
                    _wait([_spawn(g) for g in ("rules", "picks")])
                    if search:  # it calls the other two groups: after them
                        beside = ["basic_loop"] if len(wanted) > 1 else []
                        _wait([_spawn(g) for g in ["search"] + beside])
                for k in wanted:
                    compile_kernel(k)
    for k in wanted:
        compile_kernel(k)
    return time.perf_counter() - t


def _cache_lock():
    from filelock import FileLock

    from lab import jit

    cache = Path(jit.numba.config.CACHE_DIR)
    cache.mkdir(parents=True, exist_ok=True)
    return FileLock(str(cache / "compile.lock"))


def _wait(procs) -> None:
    for p in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            # a failed helper is not fatal: this process compiles what is missing itself
            print(
                f"note: a compile process ended with code {p.returncode}: "
                f"{(err or '').strip().splitlines()[-1:]}",
                file=sys.stderr,
            )
