"""lab.jit.kernel: a kernel called with constants is compiled once per argument types,
not once per constant (numba's default, which multiplied the cold compile)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent


def _probe(code: str, **env: str) -> str:
    """Run ``code`` in a fresh process that imports tests/_support; its standard output."""
    env = {
        **os.environ,
        **env,
        "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="compiles kernels")
def test_constants_share_one_compiled_copy(tmp_path):
    out = _probe(
        "import numpy as np\nfrom _support import one_copy\n"
        "assert one_copy.caller(np.int64(5)) == 6 + 3 + 8\n"
        "print(len(one_copy.callee.signatures), one_copy.callee.signatures[0])",
        NUMBA_CACHE_DIR=str(tmp_path),
    ).split(" ", 1)
    assert out[0] == "1", out  # three calls, two of them all constants: one copy
    assert "Literal" not in out[1]


def test_plain_python_under_disable_jit():
    out = _probe(
        "from _support import one_copy\nprint(one_copy.caller(5), type(one_copy.callee).__name__)",
        NUMBA_DISABLE_JIT="1",
    ).split()
    assert out == ["17", "function"]
