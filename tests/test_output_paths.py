"""Output paths are checked before the work (issue 27, item 2): `lab report --out`, `lab play
--save-scenario` / `--replay-dir` and `lab replay --save-scenario` refuse a path that cannot be
written in one line with exit 2 — before the report is computed or the match played.

The tests run as any user, root included (CI): a path below a regular file cannot be created
for anyone, and a read-only file system is simulated where the check probes the folder
(``tempfile.mkstemp`` failing with EROFS, as it does on one)."""

from __future__ import annotations

import errno
import os
import tempfile
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

import lab.cli as cli
from _support.sim_cases import write_config
from lab import writable
from lab.errors import LabError
from lab.sim.config import load_experiment
from lab.sim.runner import run
from test_cli import assert_one_line_error

TINY = """
name = "tiny"
seed = 3
games = 4
armies = ["oda", "takeda"]
bots = "random"
"""


def invoke(*args, input=None):
    return CliRunner().invoke(cli.app, list(args), input=input, env={"COLUMNS": "200"})


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("out")
    out = folder / "r"
    run(load_experiment(write_config(folder, TINY)), out, jobs=1)
    return out


@pytest.fixture
def no_report(monkeypatch):
    """The report is never computed: a check that comes after the work fails the test."""
    from lab.report import build, seats

    def computed(*args, **kwargs):
        raise AssertionError("the report was computed before its path was checked")

    monkeypatch.setattr(build, "build_report", computed)
    monkeypatch.setattr(seats, "build_report", computed)


def read_only(monkeypatch, folder: Path):
    """Creating a file in ``folder`` fails as on a read-only mount."""
    mkstemp = tempfile.mkstemp

    def refuse(*args, dir=None, **kwargs):
        if dir is not None and Path(dir).resolve() == folder.resolve():
            raise OSError(errno.EROFS, "Read-only file system", str(folder))
        return mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr(writable.tempfile, "mkstemp", refuse)


# ------------------------------------------------------------------------------- lab report


@pytest.mark.parametrize("fmt", ["html", "md"])
def test_report_out_below_a_file_is_refused_before_the_report(results, tmp_path, no_report, fmt):
    (tmp_path / "afile").write_text("x")
    target = tmp_path / "afile" / f"x.{fmt}"
    assert_one_line_error(
        invoke("report", str(results), "--format", fmt, "--out", str(target)),
        f"--out {target}",
        "is a file, so no folder can be made there",
    )


def test_report_out_on_a_read_only_folder_is_refused_before_the_report(
    results, tmp_path, no_report, monkeypatch
):
    ro = tmp_path / "unwritable"
    ro.mkdir()
    read_only(monkeypatch, ro)
    for target in (ro / "x.html", ro / "deeper" / "x.html"):
        assert_one_line_error(
            invoke("report", str(results), "--out", str(target)),
            f"--out {target} cannot be written (read-only file system)",
        )
    assert list(ro.iterdir()) == []  # the check created nothing


def test_report_in_a_read_only_results_folder_says_to_give_out(results, no_report, monkeypatch):
    read_only(monkeypatch, results)
    assert_one_line_error(
        invoke("report", str(results)),
        f"the report {results / 'report.html'} cannot be written "
        "(read-only file system); give --out PATH",
    )


def test_report_over_a_file_that_cannot_be_opened_for_writing(results, tmp_path, no_report):
    if os.geteuid() == 0:
        pytest.skip("root may write any file: a permission cannot make one unwritable")
    page = tmp_path / "locked.html"
    page.write_text("old")
    page.chmod(0o444)
    assert_one_line_error(
        invoke("report", str(results), "--out", str(page)),
        "cannot be overwritten (permission denied)",
    )
    assert page.read_text() == "old"


def test_the_check_leaves_a_writable_path_as_it_was(tmp_path):
    page = tmp_path / "report.html"
    page.write_text("old")
    writable.check_file(page, "--out")
    writable.check_file(tmp_path / "new" / "deeper" / "x.html", "--out")
    writable.check_folder(tmp_path / "folder", "--out")
    assert page.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]  # no probe left


def test_a_writable_report_path_is_still_written(results, tmp_path):
    result = invoke(
        "report", str(results), "--format", "md", "--out", str(tmp_path / "new" / "r.md")
    )
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "new" / "r.md").is_file()


# ------------------------------------------------------------------ lab play / lab replay


def test_play_save_scenario_that_cannot_be_written_is_refused_before_the_match(
    tmp_path, monkeypatch
):
    ro = tmp_path / "unwritable"
    ro.mkdir()
    read_only(monkeypatch, ro)
    replays = tmp_path / "replays"
    r = invoke(
        "play",
        "--seed",
        "1",
        "--replay-dir",
        str(replays),
        "--save-scenario",
        str(ro / "s.toml"),
        input="1\n" * 400,
    )
    assert_one_line_error(
        r, f"--save-scenario {ro / 's.toml'} cannot be written (read-only file system)"
    )
    assert not list(replays.glob("*.json"))  # no match was played


def test_play_save_scenario_below_a_file_and_a_read_only_replay_dir(tmp_path, monkeypatch):
    (tmp_path / "afile").write_text("x")
    assert_one_line_error(
        invoke(
            "play",
            "--replay-dir",
            str(tmp_path / "rep"),
            "--save-scenario",
            str(tmp_path / "afile" / "s.toml"),
            input="quit\n",
        ),
        "--save-scenario",
        "does not exist",
    )
    ro = tmp_path / "ro"
    ro.mkdir()
    read_only(monkeypatch, ro)
    assert_one_line_error(
        invoke("play", "--replay-dir", str(ro), input="quit\n"),
        f"--replay-dir {ro} cannot be written (read-only file system)",
    )


def test_replay_save_scenario_is_checked_before_the_replay(tmp_path, monkeypatch):
    from lab.games.daitenka.play import PlaySession, PlaySettings, show_replay_file
    from lab.games.daitenka.play.options import parse_bot_option

    answers = iter(["1"] * 500)
    console = Console(file=StringIO(), width=120)
    PlaySession(
        PlaySettings(army="oda", vs="takeda", bot=parse_bot_option("random"), seed=2),
        replay_dir=tmp_path / "replays",
        console=console,
        ask=lambda prompt: "q" if prompt.startswith("again") else next(answers),
    ).run()
    (replay,) = (tmp_path / "replays").glob("*.json")
    ro = tmp_path / "ro"
    ro.mkdir()
    read_only(monkeypatch, ro)
    shown = Console(file=StringIO(), width=120)
    with pytest.raises(LabError, match="--save-scenario .* cannot be written"):
        show_replay_file(replay, console=shown, save_scenario=ro / "s.toml")
    assert "reproduces" not in shown.file.getvalue()  # refused before replaying
    r = invoke("replay", str(replay), "--save-scenario", str(ro / "s.toml"))
    assert_one_line_error(r, "--save-scenario", "read-only file system")
