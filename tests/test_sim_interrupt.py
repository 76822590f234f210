"""Interrupts (issue 13): Ctrl-C ends `lab run` with one line and exit 130 — no worker
traceback, no leaked-semaphore warning — and `--resume` finishes the run; a SIGKILL of the
parent alone leaves no loky worker alive beyond a few seconds."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

from _support.sim_cases import KILL, lab_command, write_config
from lab.sim import read_games
from lab import records as rec
from lab.sim.config import load_experiment

PROGRESS = re.compile(r"^\[\d+:\d\d:\d\d\] ")  # a plain progress line (lab.sim.progress)

PAUSE = "0.1"  # seconds each chunk file waits before its rename: the run lasts a while


def start(config: Path, out: Path, *extra: str, pause: str = PAUSE) -> subprocess.Popen:
    env = dict(os.environ, **{rec.PAUSE_ENV: pause, "COLUMNS": "100"})
    return subprocess.Popen(
        lab_command() + ["run", str(config), "--out", str(out), "--jobs", "2", *extra],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def wait_for_chunks(proc, out: Path, n: int, timeout: float = 180.0) -> None:
    end = time.monotonic() + timeout
    while len(rec.written_chunks(out)) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, "the run wrote no chunk in time"
        time.sleep(0.02)


def session_pids(sid: int) -> list[int]:
    """Processes of a session (the run, its loky workers and loky's resource tracker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":  # fields: state, ppid, pgrp, session
            found.append(int(entry.name))
    return found


def test_ctrl_c_prints_one_line_and_resume_finishes(tmp_path):
    config = write_config(tmp_path, KILL)
    out = tmp_path / "r"
    proc = start(config, out)
    wait_for_chunks(proc, out, 3)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal does: the whole process group
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    for noise in (
        "Traceback",
        "KeyboardInterrupt",
        "leaked",
        "Exception in thread",
        "resource_tracker",
    ):
        assert noise not in stderr, stderr
    # stderr is a pipe: the progress comes as plain "[0:00:12] games …" lines (issue 27)
    lines = [x for x in stderr.splitlines() if x.strip() and not PROGRESS.match(x)]
    assert lines[-1].startswith("error: interrupted: ") and "--resume" in lines[-1]
    assert sum(x.startswith("error: ") for x in lines) == 1
    assert len(lines) <= 3, stderr  # the run's header, its progress line, the error

    done = start(config, out, "--resume", pause="0")  # test_sim_kill compares the records
    _, stderr = done.communicate(timeout=300)
    assert done.returncode == 0, stderr
    games = read_games(out, columns=["game_id"])
    assert games["game_id"].is_unique and len(games) == load_experiment(config).total_games


def test_sigkill_of_the_parent_leaves_no_worker_behind(tmp_path):
    config = write_config(tmp_path, KILL)
    out = tmp_path / "r"
    proc = start(config, out)
    wait_for_chunks(proc, out, 3)
    assert len(session_pids(proc.pid)) >= 3  # the run and its two workers at least
    os.kill(proc.pid, signal.SIGKILL)  # the parent alone, as the OOM killer would
    proc.wait(timeout=30)
    end = time.monotonic() + 10
    while session_pids(proc.pid) and time.monotonic() < end:
        time.sleep(0.1)
    left = session_pids(proc.pid)
    if left:
        os.killpg(proc.pid, signal.SIGKILL)
    assert not left, f"workers still alive 10 s after their parent died: {left}"
    proc.communicate(timeout=30)


def test_loky_s_resource_tracker_is_told_to_keep_its_exit_warning(monkeypatch):
    """The tracker inherits the environment; its "leaked semlock" warning after an interrupted
    executor (intermittent, so the Ctrl-C test above cannot be relied on to catch it) is
    filtered, and a user's own filters are kept."""
    from lab.sim import dispatch

    monkeypatch.setenv("PYTHONWARNINGS", "default::DeprecationWarning")
    for _ in range(2):
        dispatch._quiet_resource_tracker()
    assert os.environ["PYTHONWARNINGS"] == (
        "default::DeprecationWarning,ignore:resource_tracker:UserWarning"
    )
    code = (
        "import warnings; warnings.warn('resource_tracker: There appear to be 1 leaked "
        "semlock objects', UserWarning); warnings.warn('kept', UserWarning)"
    )
    import sys

    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stderr
    assert "leaked" not in shown and "kept" in shown
