"""A Dask cluster that fails under `lab run --backend dask` (issue 31), on real LocalClusters of
worker processes on 127.0.0.1: a killed worker is one note of ours and the records equal a
local run's; a closed scheduler, or a cluster left without workers, ends the run in one line
(exit 2, the folder's lock released) naming the command that finishes it, and that command on
a new cluster gives the local run's records. Also: an unreachable scheduler fails within
seconds (issue 27), the local cluster never asks for port 8787, and Dask's logging stays off
the terminal unless --verbose.

The three fault tests start clusters, worker processes and `lab run` processes (a few minutes
on a busy 2-core machine): they are marked slow, and .ci/run runs them after the suite."""

from __future__ import annotations

import io
import logging
import os
import shlex
import signal
import socket
import subprocess
import time
import warnings

import pytest
from rich.console import Console
from typer.testing import CliRunner

import lab.cli as cli
from _support.sim_cases import assert_same_records, lab_command, write_config
from lab.errors import LabError
from lab.sim import cluster, lock
from lab import records as rec
from lab.sim.config import load_experiment
from lab.sim.runner import run

distributed = pytest.importorskip("distributed")

# 3 × 3 matchups × 8 random games in chunks of 2: 36 chunks; each chunk file waits PAUSE s
# before its rename (in the workers), so the run lasts long enough to be hit mid-way
FAULTS = """
name = "faults"
seed = 7
games = 8
armies = ["oda", "takeda", "uesugi"]
bots = "random"
chunk_size = 2
"""
CHUNKS = 36
PAUSE = "0.1"
# what Dask prints when it is not kept quiet: none of it may reach the user
FOREIGN = (
    "Traceback",
    "distributed.",
    "tornado.",
    "WARNING",
    "UserWarning",
    "Couldn't gather",
    "FutureCancelledError",
)


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """(config, records of the experiment played locally on one worker)."""
    folder = tmp_path_factory.mktemp("faults")
    config = write_config(folder, FAULTS)
    out = folder / "local"
    run(load_experiment(config), out, jobs=1)
    assert len(rec.written_chunks(out)) == CHUNKS
    return config, out


@pytest.fixture
def slow_writes(monkeypatch):
    """Worker processes started from now on hold each chunk file back (they inherit it)."""
    monkeypatch.setenv(rec.PAUSE_ENV, PAUSE)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def local_cluster(port: int = 0):
    """A LocalCluster of two one-thread worker processes, its scheduler on 127.0.0.1:port."""
    return distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        scheduler_port=port,
        dashboard_address=None,
        silence_logs=logging.CRITICAL,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
    )


def start(args: list[str]) -> subprocess.Popen:
    env = dict(os.environ, COLUMNS="300")
    return subprocess.Popen(
        lab_command() + args,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def until(proc, condition, timeout=240.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, ("the run ended before the fault", proc.communicate())
        assert time.monotonic() < end, "the run did not reach the fault in time"
        time.sleep(0.05)


def finish(proc) -> tuple[int, str]:
    try:
        _, stderr = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return proc.returncode, stderr


def lines(stderr: str) -> list[str]:
    return [x.strip() for x in stderr.splitlines() if x.strip()]


def assert_ours_only(stderr: str) -> None:
    for foreign in FOREIGN:
        assert foreign not in stderr, (foreign, stderr)


def assert_released(out) -> None:
    lock.refuse_if_busy(out)  # a LabError while a live run held it
    assert not (out / lock.OWNER).exists()


# ------------------------------------------------------------------------ a worker is killed


@pytest.mark.slow
def test_a_killed_worker_is_one_note_and_the_records_equal_a_local_run(
    local, slow_writes, tmp_path
):
    config, whole = local
    out = tmp_path / "r"
    with local_cluster() as dask:
        proc = start(
            [
                "run",
                str(config),
                "--out",
                str(out),
                "--backend",
                "dask",
                "--scheduler",
                dask.scheduler_address,
            ]
        )
        until(proc, lambda: len(rec.written_chunks(out)) >= 4)
        victim = next(iter(dask.workers.values())).pid  # a worker process (its nanny
        # restarts it)
        os.kill(victim, signal.SIGKILL)
        code, stderr = finish(proc)
    assert code == 0, stderr
    notes = [x for x in lines(stderr) if x.startswith("note: a Dask worker was lost")]
    assert len(notes) == 1, stderr
    assert "being replayed — the records stay the same" in notes[0], notes
    assert_ours_only(stderr)
    assert_same_records(whole, out)


# ------------------------------------------------------------------- the scheduler goes away


@pytest.mark.slow
def test_a_closed_scheduler_is_one_line_and_the_named_command_finishes_the_run(
    local, slow_writes, tmp_path
):
    config, whole = local
    out = tmp_path / "r"
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    with local_cluster(port) as dask:
        assert dask.scheduler_address == address
        proc = start(
            [
                "run",
                str(config),
                "--out",
                str(out),
                "--backend",
                "dask",
                "--scheduler",
                address,
                "--fresh",
            ]
        )
        until(proc, lambda: len(rec.written_chunks(out)) >= 4)
    code, stderr = finish(proc)

    assert code == 2, stderr
    shown = lines(stderr)
    assert sum(x.startswith("error: ") for x in shown) == 1 and shown[-1].startswith("error: ")
    assert_ours_only(stderr)
    what, _, rest = shown[-1].removeprefix("error: ").partition("; ")
    assert what == f"lost the connection to the Dask scheduler at {address}"
    written = int(rest.split(" of ")[0])
    assert 4 <= written < CHUNKS
    assert (
        f" of {CHUNKS} chunks are written in {out} and kept — once the scheduler and its "
        "workers are back, finish the run with: " in rest
    )
    command = rest.split("finish the run with: ")[1]
    assert command == shlex.join(
        [
            "lab",
            "run",
            str(config),
            "--out",
            str(out),
            "--backend",
            "dask",
            "--scheduler",
            address,
            "--resume",
        ]
    )
    assert_released(out)
    assert len(rec.written_chunks(out)) >= written  # nothing the line counted went missing

    with local_cluster(port):  # the cluster is back at the same address
        code, stderr = finish(start(shlex.split(command)[1:]))
    assert code == 0, stderr
    assert_ours_only(stderr)
    assert_same_records(whole, out)


@pytest.mark.slow
def test_a_cluster_left_without_workers_stops_in_one_line_then_resumes(
    local, slow_writes, tmp_path, monkeypatch
):
    monkeypatch.setattr(cluster, "NO_WORKER_S", 1.0)
    config, whole = local
    exp = load_experiment(config)
    out = tmp_path / "r"
    shown = io.StringIO()
    with local_cluster() as dask:
        address = dask.scheduler_address

        def retire_all_when_started():
            until_written = time.monotonic() + 240
            while len(rec.written_chunks(out)) < 4 and time.monotonic() < until_written:
                time.sleep(0.05)
            dask.scale(0)

        import threading

        retire = threading.Thread(target=retire_all_when_started, daemon=True)
        retire.start()
        with pytest.raises(LabError) as stopped:
            run(
                exp,
                out,
                backend="dask",
                scheduler=address,
                console=Console(file=shown, width=300),
                resume_command="lab run again",
            )
        retire.join()
        message = str(stopped.value)
        assert message.startswith(f"the Dask cluster at {address} has had no worker for 1 s; ")
        assert (
            f"chunks are written in {out} and kept — start workers (`dask worker "
            f"{address} --nthreads 1`), then finish the run with: lab run again" in message
        )
        assert stopped.value.exit_code == 2
        assert "no worker is left" in shown.getvalue()
        assert_released(out)

        dask.scale(2)
        with distributed.Client(dask) as client:
            client.wait_for_workers(2, timeout=120)
        result = run(exp, out, backend="dask", scheduler=address, resume=True)
    assert 0 < result.played < exp.total_games
    assert_same_records(whole, out)


# --------------------------------------------------------------------- reaching the cluster


def test_an_unreachable_scheduler_fails_within_seconds(tmp_path):
    refused = f"tcp://127.0.0.1:{free_port()}"
    with pytest.raises(LabError, match="cannot reach a Dask scheduler .connection refused."):
        with cluster.connect(refused, 2, None):
            pass
    # a port held by something that accepts and never answers: Dask's handshake alone would
    # wait for ever
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        t = time.monotonic()
        with pytest.raises(LabError, match="no Dask scheduler answered within 5 s"):
            with cluster.connect(address, 2, None):
                pass
        assert time.monotonic() - t < 4 * cluster.CONNECT_S  # it gives up; it does not hang


def test_the_local_cluster_takes_a_free_port_on_127_0_0_1_without_warning():
    held = socket.socket()
    try:
        held.bind(("127.0.0.1", 8787))
        held.listen()
    except OSError:
        pass  # held by another process already: just as good
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with cluster.local_cluster(1) as dask:
                assert dask.scheduler_address.startswith("tcp://127.0.0.1:")
                assert dask.scheduler.http_server.port != 8787
        assert not [w for w in caught if "already in use" in str(w.message)], caught
    finally:
        held.close()


# ------------------------------------------------------------------------- Dask's own logging


def test_dask_logging_is_kept_off_the_terminal_unless_verbose():
    seen = io.StringIO()
    handler = logging.StreamHandler(seen)
    dask_logger = logging.getLogger("distributed")
    dask_logger.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with cluster.quiet_dask():
                logging.getLogger("distributed.client").warning("Couldn't gather 1 keys")
                logging.getLogger("distributed.nanny").warning("Restarting worker")
                warnings.warn_explicit(
                    "Port 8787 is already in use",
                    UserWarning,
                    "node.py",
                    1,
                    module="distributed.node",
                )
            warnings.warn("ours", UserWarning)  # anyone else's warnings are left alone
        assert seen.getvalue() == ""
        assert [str(w.message) for w in caught] == ["ours"]
        assert handler in dask_logger.handlers  # restored afterwards
        with cluster.quiet_dask(verbose=True):
            logging.getLogger("distributed.nanny").warning("Restarting worker")
        assert "Restarting worker" in seen.getvalue()
    finally:
        dask_logger.removeHandler(handler)


def test_lab_run_has_verbose_and_names_the_command_that_resumes(tmp_path):
    from lab.cli.run import _resume_command

    result = CliRunner().invoke(cli.app, ["run", "--help"], env={"COLUMNS": "200"})
    assert "--verbose" in result.stdout and "Dask's own log lines" in result.stdout
    command = _resume_command(
        tmp_path / "my exp.toml",
        50,
        None,
        tmp_path / "out",
        "dask",
        "tcp://10.0.0.5:8786",
        [tmp_path / "cards.toml"],
        False,
    )
    assert shlex.split(command) == [
        "lab",
        "run",
        str(tmp_path / "my exp.toml"),
        "--games",
        "50",
        "--out",
        str(tmp_path / "out"),
        "--backend",
        "dask",
        "--scheduler",
        "tcp://10.0.0.5:8786",
        "--cards",
        str(tmp_path / "cards.toml"),
        "--resume",
    ]  # --fresh never comes back
