"""Interrupted runs: `lab run` is SIGKILLed (with its workers) at several random moments —
during start-up, while a chunk file is being written, after a random number of chunks — and each
time `--resume` carries on; the finished records equal an uninterrupted run's: no game missing,
none twice, no file corrupt."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pyarrow.parquet as pq

from _support.sim_cases import KILL, assert_same_records, lab_command, records, write_config
from lab import records as rec
from lab.sim.config import load_experiment
from lab.sim.runner import run

PAUSE = "0.03"  # seconds each chunk file waits between its temp file and the rename


def start(config: Path, out: Path, resume: bool) -> subprocess.Popen:
    env = dict(os.environ, **{rec.PAUSE_ENV: PAUSE, "COLUMNS": "120"})
    cmd = lab_command() + ["run", str(config), "--out", str(out), "--jobs", "2"]
    return subprocess.Popen(
        cmd + (["--resume"] if resume else []),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def wait_until(proc, condition, timeout=120.0) -> bool:
    """Poll ``condition`` until it holds (True) or the run ends first (False)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        if condition():
            return True
        time.sleep(0.002)
    raise AssertionError("the run neither ended nor reached the kill point")


def kill(proc) -> bool:
    """SIGKILL the run and its workers; True when it was still running."""
    alive = proc.poll() is None
    if alive:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    return alive


def temp_file_exists(out: Path) -> bool:
    return any(
        (out / kind).glob(".chunk-*.tmp")
        for kind in (rec.GAMES, rec.CARDS)
        if (out / kind).is_dir()
    )


def assert_nothing_corrupt(out: Path) -> None:
    for kind in (rec.GAMES, rec.CARDS):
        for path in (out / kind).glob("chunk-*.parquet"):
            assert pq.read_metadata(path).num_rows > 0, path


def test_sigkill_at_random_moments_then_resume_gives_the_uninterrupted_records(tmp_path):
    config = write_config(tmp_path, KILL)
    exp = load_experiment(config)
    run(exp, tmp_path / "whole", jobs=1)
    total = len(rec.written_chunks(tmp_path / "whole"))
    assert total == 81

    out = tmp_path / "killed"
    rng = random.Random(20240601)
    moments = [
        ("start-up", lambda p: wait_until(p, lambda: False, rng.uniform(0.2, 1.5)) or True),
        ("writing a chunk", lambda p: wait_until(p, lambda: temp_file_exists(out))),
        (
            "after some chunks",
            lambda p: wait_until(p, lambda k=rng.randint(5, 40): len(rec.written_chunks(out)) >= k),
        ),
        ("writing a chunk", lambda p: wait_until(p, lambda: temp_file_exists(out))),
        ("random time", lambda p: wait_until(p, lambda: time.monotonic() > deadline)),
    ]
    killed_mid_run, pids = [], []
    for i, (what, reached) in enumerate(moments):
        proc = start(config, out, resume=i > 0)
        pids.append(proc.pid)
        deadline = time.monotonic() + rng.uniform(0.5, 4.0)
        try:
            reached_point = reached(proc)
        except AssertionError:
            reached_point = True  # start-up wait ran out: kill now
        written = len(rec.written_chunks(out))
        if kill(proc) and reached_point and written < total:
            killed_mid_run.append(what)
        assert_nothing_corrupt(out)
    assert "writing a chunk" in killed_mid_run and len(killed_mid_run) >= 3, killed_mid_run

    final = start(config, out, resume=True)
    stdout, stderr = final.communicate(timeout=300)
    assert final.returncode == 0, stderr
    assert "per variant" in stdout
    leftovers = [p.name for kind in (rec.GAMES, rec.CARDS) for p in (out / kind).glob(".*")]
    assert not leftovers, (leftovers, "temp files name their writer's pid; runs:", pids, final.pid)
    games, _ = records(out)
    assert games["game_id"].is_unique and len(games) == exp.total_games
    assert_same_records(tmp_path / "whole", out)
    man = json.loads((out / "manifest.json").read_text())
    assert man["status"] == "complete" and man["chunks_written"] == total
    assert sum(s.get("games_played", 0) for s in man["sessions"]) <= 2 * exp.total_games
