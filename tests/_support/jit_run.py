"""One module of ``tests/_support`` run in a fresh process, compiled or under NUMBA_DISABLE_JIT=1,
its JSON output returned: the parity tests compare the two (architecture.md principle 1)."""

import json
import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent


def run_support(module: str, *args: str, jit: bool):
    env = dict(os.environ, PYTHONPATH=str(TESTS) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("NUMBA_DISABLE_JIT", None)
    if not jit:
        env["NUMBA_DISABLE_JIT"] = "1"
    out = subprocess.run(
        [sys.executable, "-m", f"_support.{module}", *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=TESTS,
    )
    return json.loads(out.stdout)
