"""What a run shows while it works: a status line that counts the seconds (compiling the engine,
connecting to a cluster, the Dask workers getting ready, each step of ``lab bench``), the games
progress bar, and one-line notes. On a terminal the status line starts with the time elapsed and
is cut to the terminal's width (the counter is never the part cut off); when the output is not a
terminal (CI, ``| tee``, a notebook's ``!lab run``) a live line cannot redraw, so a plain line is
printed once a wait has lasted ``PLAIN_FIRST_S`` seconds and again every ``PLAIN_EVERY_S``
seconds, for the compile and for the games alike (a shorter wait prints nothing). Presentation
only: it plays nothing and decides nothing."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Column
from rich.text import Text

# when stderr is no terminal: the first plain progress line after PLAIN_FIRST_S, then one every
# PLAIN_EVERY_S seconds
PLAIN_FIRST_S = 2.0
PLAIN_EVERY_S = 10.0


def engine_message() -> str:
    """What the wait before the first game is: compiling, or loading the cached kernels."""
    from lab import jit

    cache = Path(jit.numba.config.CACHE_DIR)
    if os.environ.get("NUMBA_DISABLE_JIT") == "1" or next(cache.rglob("*.nbi"), None):
        return "loading the compiled engine"
    return (
        "compiling the engine: the first run after an install or an engine change "
        "compiles it once (a few minutes on 2 cores), later runs load it"
    )


def note(console: Console | None, message: str) -> None:
    if console is not None:
        console.print(Text("note: ", style="bold cyan") + Text(message), soft_wrap=True)


class RateColumn(ProgressColumn):
    """Games per second over the last half minute."""

    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} games/s" if speed else "… games/s", style="cyan")


class _Fitted(ProgressColumn):
    """The task's description cut with "…" to what the terminal's width leaves after the
    elapsed time and the spinner (read at each refresh: a resized window is followed)."""

    BEFORE = len("0:00:00 ⠋ ")

    def __init__(self, console: Console):
        super().__init__(table_column=Column(no_wrap=True))
        self.console = console

    def render(self, task) -> Text:
        text = Text(task.description)
        text.truncate(max(1, self.console.width - self.BEFORE - 1), overflow="ellipsis")
        return text


def clock(seconds: float) -> str:
    """Elapsed time as rich shows it on a terminal: 0:01:05."""
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


@contextlib.contextmanager
def _ticker(console: Console, line):
    """Print ``line(elapsed_s)`` once the wait has lasted ``PLAIN_FIRST_S`` seconds and then
    every ``PLAIN_EVERY_S`` seconds until the ``with`` ends (from a daemon thread: the wait it
    reports is the main thread's). A step over sooner prints nothing, so a refused start stays
    one line. Yields a callable telling whether a line was printed."""
    started = time.monotonic()
    stop = threading.Event()
    printed = []

    def tick():
        wait = PLAIN_FIRST_S
        while not stop.wait(wait):
            console.print(line(time.monotonic() - started), soft_wrap=True, highlight=False)
            printed.append(True)
            wait = PLAIN_EVERY_S

    thread = threading.Thread(target=tick, name="lab-progress", daemon=True)
    thread.start()
    try:
        yield lambda: bool(printed)
    finally:
        stop.set()
        thread.join()


@contextlib.contextmanager
def live_status(console: Console | None, message: str):
    """The time elapsed, a spinner and ``message`` until the ``with`` ends; yields a callable
    that replaces the message."""
    if console is None:
        yield lambda m: None
        return
    if not console.is_terminal:
        shown, said = [message], [None]

        def line(elapsed: float) -> str:
            # a long message in full once, then its head: "compiling the engine"
            m = shown[0]
            again = m == said[0] and len(m) > 80
            said[0] = m
            return f"[{clock(elapsed)}] {m.split(':')[0] + ' …' if again else m}"

        with _ticker(console, line):
            yield lambda m: shown.__setitem__(0, m)
        return
    # elapsed first, the message last and cut to the width: the counter always shows
    with Progress(
        TimeElapsedColumn(), SpinnerColumn(), _Fitted(console), console=console, transient=True
    ) as bar:
        task = bar.add_task(message, total=None)
        yield lambda m: bar.update(task, description=m)


@contextlib.contextmanager
def status(console: Console | None, message: str):
    """``message`` with the time elapsed and a spinner while the ``with`` body runs."""
    with live_status(console, message):
        yield


@contextlib.contextmanager
def games_bar(console: Console | None, total: int, already: int):
    """A callable that advances the bar by n games (a no-op without a console)."""
    if console is None:
        yield lambda n: None
        return
    if not console.is_terminal:
        with _plain_games(console, total, already) as advance:
            yield advance
        return
    bar = Progress(
        TextColumn("[bold]games"),
        BarColumn(bar_width=24),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        RateColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TimeElapsedColumn(),
        console=console,
        speed_estimate_period=30,
    )
    with bar:
        task = bar.add_task("games", total=total, completed=already)
        yield lambda n: bar.advance(task, n)


@contextlib.contextmanager
def _plain_games(console: Console, total: int, already: int):
    """The games bar as plain lines: games done, share, rate and time left, every
    ``PLAIN_EVERY_S`` seconds and once more at the end."""
    done = [already]

    def line(elapsed: float) -> str:
        played = done[0] - already
        text = (
            f"[{clock(elapsed)}] games {done[0]:,}/{total:,} ({done[0] / total:.0%})"
            if total
            else f"[{clock(elapsed)}] games {done[0]:,}"
        )
        if played and elapsed > 0:
            rate = played / elapsed
            text += f", {rate:,.0f} games/s"
            if total > done[0]:
                text += f", about {clock((total - done[0]) / rate)} left"
        return text

    started = time.monotonic()
    with _ticker(console, line) as printed:
        yield lambda n: done.__setitem__(0, done[0] + n)
    if printed():  # the count it ended at, after the lines that showed it moving
        console.print(line(time.monotonic() - started), soft_wrap=True, highlight=False)
