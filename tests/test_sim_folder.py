"""The results folder on good and bad days (issue 13): run the same command twice, a refused
start leaves nothing behind, one run at a time (the lock), damaged chunks are named and
replayed, and write failures end in one line."""

from __future__ import annotations

import errno
import json
import os
import platform
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import lab.cli as cli
from _support.sim_cases import assert_same_records, lab_command, records, write_config
from lab.errors import LabError
from lab.sim import lock, read_games
from lab import records as rec
from lab.sim.config import load_experiment
from lab.sim.runner import run

# 3 armies × 3 armies × 4 random games in chunks of 2: 18 chunks, played in about a second
TINY = """
name = "tiny"
seed = 3
games = 4
armies = ["oda", "takeda", "uesugi"]
bots = "random"
chunk_size = 2
"""
# many small chunks, each write held back, so a run lasts long enough to meet another
SLOW_PAUSE = "0.08"
KILL = TINY.replace('name = "tiny"', 'name = "slow"').replace("games = 4", "games = 8")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny")
    config = write_config(folder, TINY)
    out = folder / "whole"
    run(load_experiment(config), out, jobs=1)
    return config, out


def invoke(*args):
    return CliRunner().invoke(cli.app, list(args), env={"COLUMNS": "100"})


def one_line(result, *fragments, started: bool = False):
    """The error is one line; before a run starts it is all stderr holds (once started, the
    run's header and progress line come before it)."""
    assert result.exit_code == 2, (result.exit_code, result.stderr)
    assert "Traceback" not in result.stderr
    lines = [x for x in result.stderr.splitlines() if x.strip()]
    if not started:
        assert len(lines) == 1, result.stderr
    assert lines[-1].startswith("error: "), result.stderr
    assert sum(x.startswith("error: ") for x in lines) == 1, result.stderr
    for frag in fragments:
        assert frag in lines[-1], (frag, lines[-1])
    return lines[-1]


def played(tiny, tmp_path):
    """A copy of the tiny experiment's complete folder (copied: faster than playing it)."""
    import shutil

    return shutil.copytree(tiny[1], tmp_path / "r")


def files(out):
    return sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())


# ------------------------------------------------------------------------ running it twice


def test_the_same_command_twice_shows_the_summary_and_exits_0(tiny, tmp_path):
    config, _ = tiny
    out = tmp_path / "r"
    first = invoke("run", str(config), "--out", str(out), "--jobs", "1")
    assert first.exit_code == 0, first.stderr
    manifest = (out / "manifest.json").read_bytes()
    again = invoke("run", str(config), "--out", str(out), "--jobs", "1")
    assert again.exit_code == 0, again.stderr
    assert "already holds this experiment's complete records" in again.stderr
    assert "--fresh" in again.stderr and "played" not in again.stderr
    assert "per variant — 36 games" in again.stdout
    assert again.stdout == first.stdout
    assert (out / "manifest.json").read_bytes() == manifest


def test_fresh_plays_everything_again(tiny, tmp_path):
    config, whole = tiny
    out = played(tiny, tmp_path)
    (out / "notes.txt").write_text("mine")
    result = invoke("run", str(config), "--out", str(out), "--jobs", "1", "--fresh")
    assert result.exit_code == 0, result.stderr
    assert "played 36 games" in result.stderr
    man = json.loads((out / "manifest.json").read_text())
    assert len(man["sessions"]) == 1 and man["status"] == "complete"
    assert (out / "notes.txt").read_text() == "mine"  # only the records are replaced
    assert_same_records(whole, out)
    one_line(
        invoke("run", str(config), "--out", str(out), "--fresh", "--resume"),
        "--resume keeps the records",
        "give one",
    )


def test_fresh_replaces_another_experiment_s_folder(tiny, tmp_path):
    config, _ = tiny
    out = played(tiny, tmp_path)
    other = write_config(tmp_path, TINY.replace("seed = 3", "seed = 4"), "other.toml")
    one_line(
        invoke("run", str(other), "--out", str(out)),
        "another experiment",
        "differs in: seed",
        "--fresh",
    )
    assert invoke("run", str(other), "--out", str(out), "--fresh").exit_code == 0
    assert json.loads((out / "manifest.json").read_text())["config"]["seed"] == 4


@pytest.mark.parametrize(
    "options, fragments",
    [
        (
            ["--backend", "dask", "--scheduler", "notanaddress"],
            ["--scheduler notanaddress", "cannot reach a Dask scheduler"],
        ),
        (["--backend", "spark"], ["--backend spark is not allowed"]),
        (["--scheduler", "tcp://127.0.0.1:1"], ["--scheduler is for --backend dask"]),
        (["--jobs", "0"], ["--jobs 0"]),
    ],
)
def test_a_refused_start_writes_nothing_and_the_corrected_command_runs(
    tiny, tmp_path, options, fragments
):
    config, _ = tiny
    out = tmp_path / "r"
    one_line(invoke("run", str(config), "--out", str(out), *options), *fragments)
    assert not out.exists()
    fixed = invoke("run", str(config), "--out", str(out), "--jobs", "1")
    assert fixed.exit_code == 0, fixed.stderr


def test_dask_missing_is_one_line_before_anything_is_written(tiny, tmp_path, monkeypatch):
    config, _ = tiny
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    out = tmp_path / "r"
    one_line(
        invoke("run", str(config), "--out", str(out), "--backend", "dask"),
        "--backend dask needs Dask",
        "daitenka-lab[dask]",
    )
    assert not out.exists()


def test_a_start_that_wrote_no_chunk_never_blocks(tiny, tmp_path):
    config, whole = tiny
    out = played(tiny, tmp_path)
    for kind in (rec.GAMES, rec.CARDS):  # as a run killed while compiling leaves it
        for p in (out / kind).iterdir():
            p.unlink()
    result = invoke("run", str(config), "--out", str(out), "--jobs", "1")
    assert result.exit_code == 0, result.stderr
    assert_same_records(whole, out)


def test_an_interrupted_folder_asks_for_resume_or_fresh(tiny, tmp_path):
    config, _ = tiny
    out = played(tiny, tmp_path)
    rec.delete_chunk(out, 5)
    one_line(
        invoke("run", str(config), "--out", str(out)),
        "holds 17 of 18 chunks",
        "add --resume",
        "--fresh",
    )


# -------------------------------------------------------------------------- bad folders


def test_out_below_a_file_under_proc_or_unwritable_is_one_line(tiny, tmp_path, monkeypatch):
    config, _ = tiny
    (tmp_path / "afile").write_text("x")
    one_line(
        invoke("run", str(config), "--out", str(tmp_path / "afile" / "sub")),
        "cannot create the folder (a part of the path is a file)",
    )
    one_line(
        invoke("run", str(config), "--out", str(tmp_path / "afile")), "is a file; give a folder"
    )
    one_line(
        invoke("run", str(config), "--out", "/proc/lab-results"),
        "--out /proc/lab-results: cannot create the folder",
    )
    if os.path.isdir("/sys"):
        one_line(
            invoke("run", str(config), "--out", "/sys/lab-results"),
            "--out /sys/lab-results: cannot create the folder",
        )

    def read_only(self, *args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr("pathlib.Path.mkdir", read_only)
    one_line(invoke("run", str(config), "--out", str(tmp_path / "ro")), "Read-only file system")


def test_a_full_disk_is_one_line_and_keeps_the_written_chunks(tiny, tmp_path, monkeypatch):
    config, whole = tiny
    out = tmp_path / "r"
    write_table = pq.write_table
    calls = []

    def fills_up(table, where, **kwargs):  # the disk is full after a few chunks
        calls.append(where)
        if len(calls) > 9:
            raise OSError(errno.ENOSPC, "No space left on device")
        write_table(table, where, **kwargs)

    monkeypatch.setattr(pq, "write_table", fills_up)
    line = one_line(
        invoke("run", str(config), "--out", str(out), "--jobs", "1"),
        "No space left on device",
        "errno 28",
        "free some space",
        "--resume",
        started=True,
    )
    assert "Traceback" not in line
    kept = rec.written_chunks(out)
    assert 0 < len(kept) < 18
    assert not list(out.rglob(".*.tmp"))
    man = json.loads((out / "manifest.json").read_text())
    assert man["status"] == "failed"
    monkeypatch.setattr(pq, "write_table", write_table)
    assert invoke("run", str(config), "--out", str(out), "--jobs", "1", "--resume").exit_code == 0
    assert_same_records(whole, out)


# ------------------------------------------------------------------------------ the lock


def test_a_second_run_is_refused_while_the_first_holds_the_folder(tiny, tmp_path):
    config, _ = tiny
    out = played(tiny, tmp_path)
    rec.delete_chunk(out, 3)
    temp = out / rec.GAMES / ".chunk-00003.parquet.1-x.tmp"  # the first run's file in flight
    temp.write_bytes(b"partial")
    with lock.hold(out):
        before = files(out)
        owner = json.loads((out / lock.OWNER).read_text())
        assert owner["host"] == platform.node() and owner["pid"] == os.getpid()
        for args in ((), ("--resume",), ("--fresh",)):
            one_line(
                invoke("run", str(config), "--out", str(out), *args),
                "is being written by another run",
                f"pid {os.getpid()}",
            )
        assert files(out) == before and temp.exists()
    assert not (out / lock.OWNER).exists()


def test_a_lock_left_by_a_dead_run_is_taken_over_with_a_note(tiny, tmp_path):
    config, _ = tiny
    out = tmp_path / "r"
    out.mkdir()
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    ).stdout.strip()
    (out / lock.OWNER).write_text(
        json.dumps(
            {"host": platform.node(), "pid": int(dead), "started": "2026-01-01T00:00:00+00:00"}
        )
    )
    result = invoke("run", str(config), "--out", str(out), "--jobs", "1")
    assert result.exit_code == 0, result.stderr
    notes = [x for x in result.stderr.splitlines() if x.startswith("note: ")]
    assert len(notes) == 1 and f"pid {dead}" in notes[0] and "no longer runs" in notes[0]
    assert not (out / lock.OWNER).exists()


def test_a_lock_held_on_another_host_is_refused_and_named(tiny, tmp_path):
    config, _ = tiny
    out = tmp_path / "r"
    out.mkdir()
    (out / lock.OWNER).write_text(
        json.dumps({"host": "cluster-node-7", "pid": 4242, "started": "2026-01-01T00:00:00+00:00"})
    )
    one_line(
        invoke("run", str(config), "--out", str(out), "--jobs", "1"),
        "locked by a run on another host",
        "cluster-node-7",
        "pid 4242",
        str(out / lock.OWNER),
    )
    assert not (out / rec.GAMES).exists()


def start(config, out, *extra, pause: str = SLOW_PAUSE):
    env = dict(os.environ, **{rec.PAUSE_ENV: pause, "COLUMNS": "100"})
    return subprocess.Popen(
        lab_command() + ["run", str(config), "--out", str(out), "--jobs", "1", *extra],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_resume_beside_a_live_run_is_refused_and_the_run_completes(tmp_path):
    config = write_config(tmp_path, KILL)
    out = tmp_path / "r"
    # 36 chunks × 0.3 s: the first run lasts longer than the second takes to start on a loaded
    # machine (with 0.08 s it could finish first, with the tests running in parallel)
    first = start(config, out, pause="0.3")
    end = time.monotonic() + 120
    while not list((out / rec.GAMES).glob(".chunk-*.tmp")) and time.monotonic() < end:
        assert first.poll() is None, first.communicate()
        time.sleep(0.01)
    second = subprocess.run(
        lab_command() + ["run", str(config), "--out", str(out), "--resume"],
        capture_output=True,
        text=True,
    )
    assert second.returncode == 2, second.stderr
    assert "is being written by another run" in second.stderr
    assert f"pid {first.pid}" in second.stderr
    _, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr
    games, _ = records(out)
    assert games["game_id"].is_unique and len(games) == 72


def test_two_runs_started_together_play_the_experiment_once(tmp_path):
    config = write_config(tmp_path, KILL)
    out = tmp_path / "r"
    runs = [start(config, out), start(config, out)]
    results = [(p.wait(timeout=300), p.communicate()[1]) for p in runs]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    refused = next(err for code, err in results if code == 2)
    assert "being written by another run" in refused or "add --resume" in refused, refused
    man = json.loads((out / "manifest.json").read_text())
    assert man["status"] == "complete"
    assert sum(s.get("games_played", 0) for s in man["sessions"]) == 72


# ------------------------------------------------------------------------ chunk integrity


def truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def test_the_manifest_records_rows_and_checksums(tiny):
    _, out = tiny
    man = json.loads((out / "manifest.json").read_text())
    for chunk in man["chunks"]:
        for kind in (rec.GAMES, rec.CARDS):
            entry = chunk["files"][kind]
            path = rec.chunk_path(out, kind, chunk["id"])
            assert entry["rows"] == pq.read_metadata(path).num_rows
            assert entry["sha256"] == rec.file_digest(path)
        assert chunk["files"][rec.GAMES]["rows"] == chunk["deals"][1] - chunk["deals"][0]


def test_a_truncated_chunk_is_named_and_resume_replays_it(tiny, tmp_path):
    config, whole = tiny
    out = played(tiny, tmp_path)
    truncate(rec.chunk_path(out, rec.GAMES, 7))
    name = "games/chunk-00007.parquet is damaged"
    with pytest.raises(LabError, match=name):
        read_games(out)
    one_line(invoke("report", str(out)), name, "--resume")
    one_line(invoke("replay", str(out), "0", "--no-log"), name)
    one_line(invoke("run", str(config), "--out", str(out)), name, "add --resume")
    result = invoke("run", str(config), "--out", str(out), "--jobs", "1", "--resume")
    assert result.exit_code == 0, result.stderr
    assert "note: chunk 7: games/chunk-00007.parquet is damaged" in result.stderr
    assert "played 2 games" in result.stderr
    assert_same_records(whole, out)


def test_a_chunk_the_manifest_never_heard_of_is_checked_as_parquet(tiny, tmp_path):
    config, whole = tiny
    out = played(tiny, tmp_path)
    man = json.loads((out / "manifest.json").read_text())
    for chunk_id in (4, 9):  # written after the killed run last saved its manifest
        del man["chunks"][chunk_id]["files"]
    (out / "manifest.json").write_text(json.dumps(man))
    truncate(rec.chunk_path(out, rec.CARDS, 9))
    with pytest.raises(LabError, match="cards/chunk-00009.parquet is damaged .not readable"):
        read_games(out)
    assert run(load_experiment(config), out, jobs=1, resume=True).chunks_played == 1
    man = json.loads((out / "manifest.json").read_text())
    assert (
        man["chunks"][4]["files"]
        == json.loads((whole / "manifest.json").read_text())["chunks"][4]["files"]
    )  # adopted, checksummed
    assert_same_records(whole, out)


# ---------------------------------------------------------------------------------- Dask


def test_dask_workers_compile_status_and_a_one_thread_cluster_warning(tiny, tmp_path):
    import io

    pytest.importorskip("distributed")
    from rich.console import Console

    from lab.sim.cluster import local_cluster  # 127.0.0.1, a free HTTP port (not 8787)

    config, whole = tiny
    text = io.StringIO()
    console = Console(file=text, force_terminal=True, width=150)
    with local_cluster(1) as cluster:
        result = run(
            load_experiment(config),
            tmp_path / "dask",
            backend="dask",
            scheduler=cluster.scheduler_address,
            console=console,
        )
    shown = text.getvalue()
    assert result.played == 36
    assert "has one worker thread, so the run uses one core" in shown
    assert "on the Dask workers: 0 of 1 ready" in shown  # before the progress bar moves
    assert_same_records(whole, tmp_path / "dask")


# ------------------------------------------------------------------------ what lab run prints


def test_summary_tables_fit_80_columns_with_a_variant_legend(tmp_path):
    from rich.cells import cell_len

    config = write_config(
        tmp_path,
        TINY + 'rules = ["legacy_testlab", "second_edition"]\n'
        '[grid]\nhand_cap = [0, 7]\nwalls = [6, 10]\n',
    )
    result = CliRunner().invoke(
        cli.app,
        ["run", str(config), "--out", str(tmp_path / "r"), "--jobs", "1", "--games", "1"],
        env={"COLUMNS": "80"},
    )
    assert result.exit_code == 0, result.stderr
    lines = [x for x in result.stdout.splitlines() if not x.startswith("records: ")]
    assert max(cell_len(x) for x in lines) <= 80, "\n".join(lines)
    legend = [x.split() for x in lines if x.strip().startswith("v") and "+" in x]
    assert ["v8", "second_edition+walls=10+hand_cap=7"] in legend, lines
    assert "second_edition+walls" not in " ".join(x for x in lines if "│" in x)


def test_lab_run_warns_about_a_weak_deck_like_lab_decks_check(tmp_path):
    from deck_cases import WEAK_DECK, write_deck

    write_deck(tmp_path / "weak.toml", WEAK_DECK)
    config = write_config(
        tmp_path,
        TINY.replace('armies = ["oda", "takeda", "uesugi"]', 'armies = ["oda", "weak.toml"]'),
    )
    check = CliRunner().invoke(cli.app, ["decks", "--check", str(tmp_path / "weak.toml")])
    warning = next(x for x in check.stderr.splitlines() if x.startswith("warning: "))
    result = invoke("run", str(config), "--out", str(tmp_path / "r"), "--jobs", "1")
    assert result.exit_code == 0, result.stderr
    assert warning in result.stderr.splitlines()


def test_the_wait_says_whether_it_compiles_and_counts_the_seconds(tmp_path, monkeypatch):
    import io

    from rich.console import Console

    from lab import jit
    from lab.sim import progress

    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    monkeypatch.setattr(jit.numba.config, "CACHE_DIR", str(tmp_path))
    assert progress.engine_message().startswith("compiling the engine")
    (tmp_path / "lab_engine").mkdir()
    (tmp_path / "lab_engine" / "nb_play.run-1.py311.nbi").write_bytes(b"")
    assert progress.engine_message() == "loading the compiled engine"

    text = io.StringIO()
    with progress.status(Console(file=text, force_terminal=True, width=100), "compiling"):
        time.sleep(1.3)
    assert "compiling" in text.getvalue() and "0:00:01" in text.getvalue()
