"""The test session as a whole: it runs in parallel (pytest-xdist, ``-n auto`` in pyproject's
addopts; ``-n 0`` runs it in one process), so what the workers share is settled here.

Before the workers start, the controller compiles the 大天下 engine and its bots into numba's
cache (``lab.games.daitenka.bots.compile.ensure_compiled``, which compiles a cold cache on every core and only
looks at a warm one): otherwise each worker would compile the same kernels at once on a cold
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
    from lab.games.daitenka.bots.compile import ensure_compiled

    ensure_compiled(search=True)
