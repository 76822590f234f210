"""architecture.md principle 1: the compiled engine and the same code under NUMBA_DISABLE_JIT=1
give identical event sequences (and identical final states) for the same seeds."""

from _support.jit_run import run_support
from pathlib import Path

import pytest

ROOT = Path(__file__).parent


def _run(per_preset: int, jit: bool) -> dict:
    return run_support("parity_games", str(per_preset), jit=jit)


def _compare(per_preset: int):
    compiled = _run(per_preset, jit=True)
    plain = _run(per_preset, jit=False)
    assert compiled.keys() == plain.keys()
    assert len(compiled) == 3 * per_preset
    for key in compiled:
        assert len(compiled[key]) > 10, key
        assert compiled[key] == plain[key], f"{key}: the event logs differ"


def test_jit_parity_20_games_per_preset():
    _compare(20)


@pytest.mark.slow
def test_jit_parity_100_games_per_preset():
    _compare(100)
