"""architecture.md principle 1 for Rumble Nation: the compiled kernels and the same code under
NUMBA_DISABLE_JIT=1 give identical games — result rows of random, heuristic and search play per
preset, and a facade game's every step — for the same seed words."""

from _support.jit_run import run_support
from pathlib import Path

import pytest

ROOT = Path(__file__).parent


def _run(scale: int, jit: bool) -> dict:
    return run_support("rn_parity", str(scale), jit=jit)


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
