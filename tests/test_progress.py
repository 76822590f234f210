"""A sign of life while a run waits (issue 27, item 1): on a terminal the status line starts with
the time elapsed and stays within the terminal's width; when stderr is not a terminal (CI,
``| tee``, a notebook's ``!lab run``) a plain line is printed once a wait has lasted
``PLAIN_FIRST_S`` seconds and then every ``PLAIN_EVERY_S`` seconds, for the compile and for the
games; a shorter wait prints nothing."""

from __future__ import annotations

import io
import re
import time

from rich.cells import cell_len
from rich.console import Console
from typer.testing import CliRunner

import lab.cli as cli
from _support.sim_cases import write_config
from lab.sim import progress

LONG = (
    "compiling the engine: the first run after an install or an engine change compiles it "
    "once (a few minutes on 2 cores), later runs load it"
)
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

TINY = """
name = "tiny"
seed = 3
games = 2
armies = ["oda", "takeda"]
bots = "random"
chunk_size = 2
"""


def screen_lines(raw: str) -> list[str]:
    """What a terminal shows of a live display's output: escape codes dropped, each redraw
    (after a carriage return or a newline) a line of its own."""
    return [x for x in re.split(r"[\r\n]", ANSI.sub("", raw)) if x.strip()]


def test_on_a_120_column_terminal_the_status_line_starts_with_the_seconds_and_fits():
    raw = io.StringIO()
    console = Console(file=raw, force_terminal=True, width=120)
    with progress.status(console, LONG):
        time.sleep(1.3)
    shown = screen_lines(raw.getvalue())
    assert shown, raw.getvalue()
    for line in shown:
        assert cell_len(line) <= 120, line
        assert re.match(r"^0:00:0\d ", line), line  # the counter first, never the part cut
    assert any(line.startswith("0:00:01") for line in shown), shown
    assert "compiling the engine" in shown[-1]


def plain_every(monkeypatch, seconds: float) -> None:
    monkeypatch.setattr(progress, "PLAIN_FIRST_S", seconds)
    monkeypatch.setattr(progress, "PLAIN_EVERY_S", seconds)


def test_without_a_terminal_a_plain_line_comes_after_a_while_and_every_period(monkeypatch):
    plain_every(monkeypatch, 0.1)
    text = io.StringIO()
    console = Console(file=text, width=80)  # a file: not a terminal
    assert not console.is_terminal
    with progress.live_status(console, "compiling the engine") as say:
        time.sleep(0.75)  # lines at 0.1, 0.2, …: at least 3 even on a loaded machine
        say("on the workers: 1 of 2 ready")
        time.sleep(0.5)
    lines = text.getvalue().splitlines()
    assert len(lines) >= 3, lines
    assert all(re.match(r"^\[0:00:0\d\] ", x) for x in lines), lines
    assert lines[0] == "[0:00:00] compiling the engine"
    assert all("on the workers" in x for x in lines if "compiling" not in x)
    assert lines[-1].endswith("on the workers: 1 of 2 ready")
    assert "\x1b" not in text.getvalue()  # plain text, no cursor moves


def test_without_a_terminal_the_games_bar_is_plain_lines_with_count_rate_and_time_left(monkeypatch):
    plain_every(monkeypatch, 0.2)
    text = io.StringIO()
    with progress.games_bar(Console(file=text, width=80), 1000, 100) as advance:
        time.sleep(0.3)
        advance(300)
        time.sleep(0.3)
    lines = text.getvalue().splitlines()
    assert lines[0] == "[0:00:00] games 100/1,000 (10%)"
    assert any(
        re.search(r"games 400/1,000 \(40%\), [\d,]+ games/s, about \d:\d\d:\d\d left$", x)
        for x in lines
    ), lines
    assert lines[-1].startswith("[0:00:00] games 400/1,000")  # the closing line
    assert "\x1b" not in text.getvalue()


def test_without_a_terminal_a_short_wait_prints_nothing(monkeypatch):
    """A refused start (an unreachable scheduler, a busy folder) stays one line."""
    monkeypatch.setattr(progress, "PLAIN_FIRST_S", 0.5)
    text = io.StringIO()
    console = Console(file=text, width=80)
    with progress.status(console, "connecting"):
        time.sleep(0.1)
    with progress.games_bar(console, 10, 0) as advance:
        advance(10)
    assert text.getvalue() == ""


def test_lab_run_with_stderr_piped_prints_while_the_engine_warms_up(tmp_path, monkeypatch):
    """The wait before the first game (the compile: minutes on a loaded machine) is no longer
    silent when stderr is not a terminal (CliRunner's stderr is not one)."""
    from lab.games.daitenka import entry as daitenka

    plain_every(monkeypatch, 0.2)
    warm = daitenka.GAME.warm
    monkeypatch.setattr(daitenka.Daitenka, "warm", lambda self, job: (time.sleep(0.7), warm(job)))
    config = write_config(tmp_path, TINY)
    result = CliRunner().invoke(
        cli.app,
        ["run", str(config), "--out", str(tmp_path / "r"), "--jobs", "1"],
        env={"COLUMNS": "100"},
    )
    assert result.exit_code == 0, result.stderr
    waiting = [
        x for x in result.stderr.splitlines() if re.match(r"^\[0:00:0\d\] (loading|compiling)", x)
    ]
    assert len(waiting) >= 3, result.stderr
    message = progress.engine_message()
    assert waiting[0].endswith(f"] {message}")  # in full once, then its head if it is long
    assert all(x.endswith(message if len(message) <= 80 else "engine …") for x in waiting[1:])
