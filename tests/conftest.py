"""The test session as a whole: it runs in parallel (pytest-xdist, ``-n auto`` in pyproject's
addopts; ``-n 0`` runs it in one process), so what the workers share is settled here.

Before the workers start, the controller compiles the 大天下 engine and its bots — both match
loops, the heuristics-only one and the one with the search — into numba's cache
(``lab.games.daitenka.bots.compile.ensure_compiled``, which compiles a cold cache on every core and only looks
at a warm one), and Rumble Nation's kernels beside it: otherwise each worker would compile the same kernels at once on a cold
cache, doubling the wait, and the first test to play would carry the whole compile. Everything
else a test writes goes to its own ``tmp_path``; the one shared folder, results/screenshots/,
takes one file per test and width. Workers drop the COLUMNS xdist sets (see below).
"""

from __future__ import annotations

import os


def pytest_configure(config):
    if hasattr(config, "workerinput"):  # an xdist worker: the controller warmed the cache
        # xdist hands its workers COLUMNS=80; rich would fix the CLI consoles at that width when
        # lab.cli is imported, where a test's COLUMNS (CliRunner env) must decide it, as in one
        # process
        for name in ("COLUMNS", "LINES"):
            os.environ.pop(name, None)
        return
    if not getattr(config.option, "numprocesses", None):  # one process: it compiles as it goes
        return
    import subprocess
    import sys

    from lab.games.daitenka.bots.compile import ensure_compiled

    # Rumble Nation's kernels compile in their own process meanwhile (its first game compiles
    # them; a cache already warm costs a second), so no test worker waits on them later
    rumble = subprocess.Popen(
        [sys.executable, "-c", _RUMBLE_NATION_WARM_UP],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    ensure_compiled(search=True, both=True)
    rumble.wait()


_RUMBLE_NATION_WARM_UP = """
from lab.games.rumble_nation.batch import play_batch
from lab.games.rumble_nation.rules import RNRules
import numpy as np
play_batch(RNRules(), ["heuristic", "random"], np.ones((1, 12), np.int64))
"""
