"""Run an experiment: prepare the results folder, dispatch the chunks not yet written through
joblib (loky on local cores, or a Dask cluster through joblib's dask backend), show progress and
record timings in the manifest.

Owns the order of a run — folder check, manifest, compile warm-up, dispatch, completion — and the
interrupt contract: a chunk is either fully written or absent, so Ctrl-C or SIGKILL loses at most
the chunks in flight and ``--resume`` plays only what is missing. Workers write their own chunks
(``lab.sim.worker``); this module never builds a record and knows no rule.
"""

from __future__ import annotations

import contextlib
import platform
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn,
                           TaskProgressColumn, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from rich.text import Text

from lab.errors import LabError
from lab.sim import manifest, records
from lab.sim.config import Experiment
from lab.sim.plan import Job, jobs as plan_jobs
from lab.sim.worker import Receipt, play, play_chunk

BACKENDS = ("loky", "dask")


class RunInterrupted(LabError):
    """Ctrl-C: the chunks written so far are kept; --resume finishes the run."""

    exit_code = 130


@dataclass
class RunResult:
    out: Path
    games: int  # games in the experiment
    played: int  # games played by this session (the rest were already written)
    chunks_played: int
    seconds: float
    play_seconds: float
    errors: int  # games that hit an engine limit

    @property
    def games_per_s(self) -> float:
        return self.played / self.play_seconds if self.play_seconds else 0.0


def default_out(exp: Experiment, games_option: bool = False) -> Path:
    """results/NAME, or results/NAME-gamesN for a --games look (so it never meets the full run)."""
    return Path("results") / (f"{exp.name}-games{exp.games}" if games_option else exp.name)


def run(exp: Experiment, out: str | Path | None = None, *, jobs: int | None = None,
        resume: bool = False, backend: str = "loky", scheduler: str | None = None,
        console: Console | None = None) -> RunResult:
    """Play every chunk of ``exp`` not yet in ``out``; ``console`` shows a progress bar."""
    started = time.perf_counter()
    out = Path(out) if out is not None else default_out(exp)
    n_jobs = _check_options(jobs, backend, scheduler)
    plan = plan_jobs(exp)
    old = manifest.check_folder(out, exp, resume)
    for kind in (records.GAMES, records.CARDS):
        (out / kind).mkdir(parents=True, exist_ok=True)
    records.remove_temp_files(out)
    man = old or manifest.new(exp, [{"id": o.id, "cell": o.cell, "swapped": o.swapped,
                                     "deals": [o.lo, o.hi]}
                                    for o in sorted((o for j in plan for o in j.outputs()),
                                                    key=lambda o: o.id)])
    done = records.written_chunks(out)
    todo = [j for j in plan if not done.issuperset(j.chunk_ids)]  # copies are written with it
    session = {"started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
               "host": platform.node(), "backend": backend, "jobs": n_jobs,
               "scheduler": scheduler, "chunks": len(todo),
               "games": sum(j.size * len(j.chunk_ids) for j in todo)}
    man["sessions"].append(session)
    man["status"] = "running"
    manifest.write(out, man)

    times = {"compile_s": 0.0, "play_s": 0.0}
    receipts: list[Receipt] = []
    try:
        if todo:
            t = time.perf_counter()
            with _status(console, "loading the compiled engine (the first run after an "
                                  "install or an engine change compiles it: a few minutes)"):
                play(todo[0], games=1)  # compile or load the kernels before workers start
            times["compile_s"] = time.perf_counter() - t
            t = time.perf_counter()
            with _progress(console, exp.total_games, exp.total_games - session["games"]) as adv:
                for r in _dispatch(todo, out, n_jobs, backend, scheduler):
                    receipts.append(r)
                    adv(r.written)
                    times["play_s"] = time.perf_counter() - t
    except KeyboardInterrupt:
        _close(man, out, session, receipts, times, started, "interrupted")
        written = len(records.written_chunks(out))
        raise RunInterrupted(f"interrupted: {written} of {len(man['chunks'])} chunks are "
                             f"written in {out}; run the same command with --resume to finish") from None
    _close(man, out, session, receipts, times, started, "complete")
    return RunResult(out, exp.total_games, sum(r.games for r in receipts), len(receipts),
                     time.perf_counter() - started, times["play_s"],
                     sum(r.errors for r in receipts))


def _check_options(jobs: int | None, backend: str, scheduler: str | None) -> int:
    if backend not in BACKENDS:
        raise LabError(f"--backend {backend} is not allowed; allowed values: "
                       f"{', '.join(BACKENDS)}")
    if scheduler is not None and backend != "dask":
        raise LabError("--scheduler is for --backend dask; add --backend dask or drop it")
    if jobs is None:
        from joblib import cpu_count

        return cpu_count()  # the cores this process may use (cgroup limits included)
    if jobs < 1:
        raise LabError(f"--jobs {jobs} is not allowed; allowed values: whole numbers ≥ 1")
    return jobs


def _close(man, out, session, receipts, times, started, status) -> None:
    """Record the session's timings and the folder's status in the manifest."""
    played = sum(r.games for r in receipts)
    busy = sum(r.seconds for r in receipts)
    play_s = times["play_s"]
    session.update({
        "status": status,
        "compile_s": round(times["compile_s"], 3),
        "play_s": round(play_s, 3),
        "total_s": round(time.perf_counter() - started, 3),
        "games_played": played,
        "chunks_played": len(receipts),
        "games_per_s": round(played / play_s, 1) if play_s else None,
        "worker_busy_s": round(busy, 3),
        "errors": sum(r.errors for r in receipts),
    })
    sessions = man["sessions"]
    total = sum(s.get("games_played", 0) for s in sessions)
    secs = sum(s.get("play_s", 0) for s in sessions)
    man["throughput"] = {"games_played": total, "play_s": round(secs, 3),
                         "games_per_s": round(total / secs, 1) if secs else None}
    man["chunks_written"] = len(records.written_chunks(out))
    if status == "complete" and man["chunks_written"] != len(man["chunks"]):
        status = "incomplete"  # a chunk file vanished under the run: --resume replays it
    man["status"] = status
    manifest.write(out, man)


# ------------------------------------------------------------------------------------ dispatch

def _dispatch(todo: list[Job], out: Path, n_jobs: int, backend: str, scheduler: str | None):
    """Receipts of the chunks as they finish (in any order)."""
    from joblib import Parallel, delayed, parallel_config

    target = str(out.resolve())
    tasks = (delayed(play_chunk)(j, target) for j in todo)
    # a chunk is already a coarse task: joblib's auto-batching would only group chunks into
    # longer batches (a longer idle tail for the last worker, a jumpier progress bar)
    options = {"return_as": "generator_unordered", "batch_size": 1}
    if backend == "dask":
        with _dask_client(scheduler, n_jobs), parallel_config(backend="dask"):
            yield from Parallel(n_jobs=-1, **options)(tasks)
    else:
        yield from Parallel(n_jobs=n_jobs, backend="loky", pre_dispatch="4 * n_jobs",
                            **options)(tasks)


@contextlib.contextmanager
def _dask_client(scheduler: str | None, n_jobs: int):
    """A client of the cluster at ``scheduler``, or of a local cluster of ``n_jobs`` workers."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise LabError("--backend dask needs dask.distributed: pip install "
                       "'dask[distributed]'") from None
    with contextlib.ExitStack() as stack:
        if scheduler is None:
            cluster = stack.enter_context(LocalCluster(n_workers=n_jobs, threads_per_worker=1,
                                                       processes=True))
            scheduler = cluster.scheduler_address
        try:
            client = stack.enter_context(Client(scheduler, timeout="15s"))
        except (OSError, TimeoutError) as e:
            raise LabError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({e})") \
                from None
        yield client


# ------------------------------------------------------------------------------------ progress

class RateColumn(ProgressColumn):
    """Games per second over the last half minute."""

    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} games/s" if speed else "… games/s", style="cyan")


@contextlib.contextmanager
def _status(console: Console | None, message: str):
    if console is None:
        yield
    else:
        with console.status(message):
            yield


@contextlib.contextmanager
def _progress(console: Console | None, total: int, already: int):
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
