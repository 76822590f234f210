"""What a run shows while it works: a status line that counts the seconds (compiling the engine,
connecting to a cluster, the Dask workers getting ready, each step of ``lab bench``), the games
progress bar, and one-line notes. Presentation only: it plays nothing and decides nothing."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn,
                           SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.text import Text


def engine_message() -> str:
    """What the wait before the first game is: compiling, or loading the cached kernels."""
    from lab.engine import jit

    cache = Path(jit.numba.config.CACHE_DIR)
    if os.environ.get("NUMBA_DISABLE_JIT") == "1" or next(cache.rglob("*.nbi"), None):
        return "loading the compiled engine"
    return ("compiling the engine: the first run after an install or an engine change "
            "compiles it once (a few minutes on 2 cores), later runs load it")


def note(console: Console | None, message: str) -> None:
    if console is not None:
        console.print(Text("note: ", style="bold cyan") + Text(message), soft_wrap=True)


class RateColumn(ProgressColumn):
    """Games per second over the last half minute."""

    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} games/s" if speed else "… games/s", style="cyan")


@contextlib.contextmanager
def live_status(console: Console | None, message: str):
    """A spinner, ``message`` and the time elapsed, until the ``with`` ends; yields a callable
    that replaces the message."""
    if console is None:
        yield lambda m: None
        return
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task(message, total=None)
        yield lambda m: bar.update(task, description=m)


@contextlib.contextmanager
def status(console: Console | None, message: str):
    """``message`` with a spinner and the time elapsed while the ``with`` body runs."""
    with live_status(console, message):
        yield


@contextlib.contextmanager
def games_bar(console: Console | None, total: int, already: int):
    """A callable that advances the bar by n games (a no-op without a console)."""
    if console is None:
        yield lambda n: None
        return
    bar = Progress(TextColumn("[bold]games"), BarColumn(bar_width=24), MofNCompleteColumn(),
                   TaskProgressColumn(), RateColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                   TimeElapsedColumn(), console=console, speed_estimate_period=30)
    with bar:
        task = bar.add_task("games", total=total, completed=already)
        yield lambda n: bar.advance(task, n)
