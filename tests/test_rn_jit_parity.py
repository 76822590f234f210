"""architecture.md principle 1 for Rumble Nation: the compiled kernels and the same code under
NUMBA_DISABLE_JIT=1 give identical games — result rows of random, heuristic and search play per
preset, and a facade game's every step — for the same seed words."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent


def _run(scale: int, jit: bool) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if jit:
        env.pop("NUMBA_DISABLE_JIT", None)
    else:
        env["NUMBA_DISABLE_JIT"] = "1"
    out = subprocess.run(
        [sys.executable, "-m", "_support.rn_parity", str(scale)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(out.stdout)


def _compare(scale: int):
    compiled = _run(scale, jit=True)
    plain = _run(scale, jit=False)
    assert compiled.keys() == plain.keys() and len(compiled) == 13
    for key in compiled:
        assert len(compiled[key]) >= (10 if key.endswith("/facade") else scale), key
        assert compiled[key] == plain[key], f"{key}: compiled and plain games differ"


def test_rn_jit_parity():
    _compare(10)


@pytest.mark.slow
def test_rn_jit_parity_more_games():
    _compare(100)
