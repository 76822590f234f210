"""lab bench (issue 13): validated options, a status per step, one cold compile by default, and
no temporary cache left behind. The cold compile itself is stubbed: it takes minutes."""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
from pathlib import Path

import pytest

from lab.games.daitenka import bench
from lab.errors import LabError


def caches() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("lab-bench-cache-*")}


def test_cold_compiles_once_by_default_say_what_runs_and_leave_no_cache(monkeypatch):
    started = []

    def fake_run(cmd, env, **kwargs):  # a fresh process: note its cache, report 1.5 s
        started.append(env.get("NUMBA_CACHE_DIR"))
        if env.get("NUMBA_CACHE_DIR"):
            assert Path(env["NUMBA_CACHE_DIR"]).is_dir()
        return subprocess.CompletedProcess(cmd, 0, stdout="1.5\n", stderr="")

    monkeypatch.setattr(bench.subprocess, "run", fake_run)
    before = caches()
    said, shown = [], []

    @contextlib.contextmanager
    def status(message):
        shown.append(message)
        yield

    result = bench.run(["second_edition"], games=81, runs=1, progress=said.append, status=status)
    cold = [c for c in started if c]
    assert len(cold) == 1  # one cold compile by default
    assert not Path(cold[0]).exists() and caches() == before
    assert result["second_edition"]["compile_s"] == 1.5
    assert any(m.startswith("cold compile 1 of 1") for m in shown)
    assert any(m.startswith("second_edition: run 1 of 1") for m in shown)
    assert any("games/s" in m for m in said) and any("cold compile 1/1: 1.5 s" in m for m in said)


@pytest.mark.parametrize("options", [{"games": 0}, {"runs": 0}, {"compile_runs": -1}])
def test_bench_refuses_numbers_it_cannot_measure(options):
    with pytest.raises(LabError, match="whole numbers"):
        bench.run(["second_edition"], **options)


def test_bot_speed_times_each_bot_against_itself_beside_the_heuristic():
    """Issue 29: `lab bench` prints the strong bot's games/s beside the heuristic's and tuned's,
    as a ratio measured in the same run."""
    said = []
    result = bench.bot_speed(games=81, runs=1, progress=said.append)
    assert list(result) == ["heuristic", "tuned", "strong"]
    assert result["heuristic"]["vs_first"] == 1.0
    assert all(r["games_per_s"] > 0 for r in result.values())
    assert result["strong"]["vs_first"] == pytest.approx(
        result["strong"]["games_per_s"] / result["heuristic"]["games_per_s"]
    )
    assert any(m.startswith("strong run 1/1") for m in said)
    with pytest.raises(LabError, match="--bot-games 0"):
        bench.bot_speed(games=0)
