"""Run an experiment: prepare the results folder, dispatch the chunks not yet written (joblib's
loky on local cores, or a Dask cluster through ``lab.sim.cluster``), show progress and record
timings in the manifest.

Owns the order of a run — option and folder checks before anything is written, the folder lock,
manifest, the check of chunks already written, compile warm-up (with a status line that counts
the seconds, on the Dask workers too), dispatch, completion — and the interrupt contract: a chunk
is either fully written or absent, so Ctrl-C (one line, exit 130; workers ignore SIGINT), SIGKILL
(workers leave when their parent dies) or a lost Dask cluster (one line naming the command that
finishes the run, exit 2) loses at most the chunks in flight and ``--resume`` plays only what is
missing or damaged. Workers write their own chunks (the game's ``play_chunk``); this module never builds
a record and knows no rule.
"""

from __future__ import annotations

import contextlib
import errno
import platform
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from rich.console import Console

from lab.errors import LabError
from lab import records
from lab.sim import cluster, dispatch, lock, manifest, progress
from lab.games.protocol import Experiment
from lab.sim.receipt import Receipt

BACKENDS = ("loky", "dask")
MANIFEST_EVERY_S = 1.0  # how often the manifest takes in the chunks finished since
STALE = "stale"  # where --fresh moves what was made from the records it deletes:
DERIVED = (
    "report.html",
    "report.md",
    "report_files",  # lab report's pages (md: its figures)
    "value",
    "value.parquet",
    "balance",
)  # lab value's and lab balance's results


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
    already_complete: bool = False  # the folder held every chunk: nothing was played
    compile_seconds: float = 0.0  # compiling or loading the kernels before the games

    @property
    def games_per_s(self) -> float:
        return self.played / self.play_seconds if self.play_seconds else 0.0


def default_out(exp: Experiment, games_option: bool = False) -> Path:
    """results/NAME, or results/NAME-gamesN for a --games look (so it never meets the full run)."""
    return Path("results") / (f"{exp.name}-games{exp.games}" if games_option else exp.name)


def run(
    exp: Experiment,
    out: str | Path | None = None,
    *,
    jobs: int | None = None,
    resume: bool = False,
    fresh: bool = False,
    backend: str = "loky",
    scheduler: str | None = None,
    console: Console | None = None,
    announce=None,
    verbose: bool = False,
    resume_command: str | None = None,
) -> RunResult:
    """Play every chunk of ``exp`` not yet in ``out``; ``console`` shows progress and notes.

    Every option and the folder are checked before anything is written, so a refused start
    leaves nothing behind (and ``announce()`` is called only once they pass); a complete folder
    is left as it is (``already_complete``) unless ``fresh`` asks to play it again. ``verbose``
    lets Dask print its own log lines; ``resume_command`` is the command a stopped run names
    to finish it (default: "the same command with --resume")."""
    announce = announce or (lambda: None)
    started = time.perf_counter()
    out = Path(out) if out is not None else default_out(exp)
    n_jobs = _check_options(jobs, backend, scheduler, resume, fresh)
    lock.refuse_if_busy(out)
    folder = manifest.check_folder(out, exp, resume, fresh)
    if folder.complete:
        bad = records.damaged_chunks(out, folder.manifest)
        if not bad:
            announce()
            return RunResult(
                out,
                exp.total_games,
                0,
                0,
                time.perf_counter() - started,
                0.0,
                0,
                already_complete=True,
            )
        if not resume:
            chunk_id, problem = next(iter(bad.items()))
            raise LabError(
                f"--out {out}: {problem}; add --resume to replay "
                f"{'it' if len(bad) == 1 else f'the {len(bad)} damaged chunks'}"
            )
    with _cluster(backend, scheduler, n_jobs, console, verbose) as client:
        _make_folder(out)
        with lock.hold(out, note=lambda m: progress.note(console, m)):
            # again under the lock: another run may have written the folder meanwhile
            folder = manifest.check_folder(out, exp, resume, fresh)
            announce()
            return _run_locked(
                exp,
                out,
                folder,
                fresh,
                n_jobs,
                backend,
                scheduler,
                client,
                console,
                started,
                resume_command,
            )


def _cluster(backend, scheduler, n_jobs, console, verbose):
    """The Dask client (None for loky)."""
    if backend != "dask":
        return contextlib.nullcontext()
    return cluster.connect(scheduler, n_jobs, console, verbose)


def _run_locked(
    exp,
    out,
    folder,
    fresh,
    n_jobs,
    backend,
    scheduler,
    client,
    console,
    started,
    resume_command=None,
) -> RunResult:
    from lab.games import get

    game = get(exp.game)  # the registered game: its plan, warm-up, chunk player and tables
    plan = game.plan(exp)
    try:
        if fresh:
            records.clear(out)
            _set_aside_derived(out, console)
        for kind in game.RECORD_KINDS:
            (out / kind).mkdir(exist_ok=True)
        records.remove_temp_files(out)
        man = folder.manifest or manifest.new(
            exp,
            [
                {"id": o.id, "cell": o.cell, "swapped": o.swapped, "deals": [o.lo, o.hi]}
                for o in sorted((o for j in plan for o in j.outputs()), key=lambda o: o.id)
            ],
        )
        _check_written(out, man, console)
        done = records.written_chunks(out)
        todo = [j for j in plan if not done.issuperset(j.chunk_ids)]  # copies are written with it
        session = {
            "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "host": platform.node(),
            "backend": backend,
            "jobs": n_jobs,
            "scheduler": scheduler,
            "chunks": len(todo),
            "games": sum(j.size * len(j.chunk_ids) for j in todo),
        }
        man["sessions"].append(session)
        man["status"] = "running"
        manifest.write(out, man)
    except OSError as e:
        raise _write_failed(out, e) from None

    times = {"compile_s": 0.0, "play_s": 0.0}
    receipts: list[Receipt] = []
    try:
        if todo:
            t = time.perf_counter()
            with progress.status(console, progress.engine_message()):
                game.warm(todo[0])  # compile or load the kernels before workers start
            times["compile_s"] = time.perf_counter() - t
            if client is not None:
                cluster.warm(client, todo[0], console, game.warm)
            t = time.perf_counter()
            saved = time.monotonic()
            with progress.games_bar(
                console, exp.total_games, exp.total_games - session["games"]
            ) as adv:
                for r in dispatch.chunks(
                    todo, out, n_jobs, backend, game.play_chunk, client, cluster.note_to(console)
                ):
                    receipts.append(r)
                    for chunk_id, written in r.files.items():
                        man["chunks"][chunk_id]["files"] = written
                    adv(r.written)
                    times["play_s"] = time.perf_counter() - t
                    if time.monotonic() - saved > MANIFEST_EVERY_S:
                        manifest.write(out, man)
                        saved = time.monotonic()
    except KeyboardInterrupt:
        _close(man, out, session, receipts, times, started, "interrupted")
        written = len(records.written_chunks(out))
        raise RunInterrupted(
            f"interrupted: {written} of {len(man['chunks'])} chunks are "
            f"written in {out}; run the same command with --resume to "
            "finish"
        ) from None
    except cluster.ClusterLost as e:
        with contextlib.suppress(OSError):
            _close(man, out, session, receipts, times, started, "interrupted")
        written = len(records.written_chunks(out))
        finish = (
            f"finish the run with: {resume_command}"
            if resume_command
            else "run the same command with --resume to finish"
        )
        raise LabError(
            f"{e.what}; {written} of {len(man['chunks'])} chunks are written in "
            f"{out} and kept — {f'{e.fix} ' if e.fix else ''}{finish}"
        ) from None
    except OSError as e:
        with contextlib.suppress(OSError):
            _close(man, out, session, receipts, times, started, "failed")
        raise _write_failed(out, e) from None
    try:
        _close(man, out, session, receipts, times, started, "complete")
    except OSError as e:
        raise _write_failed(out, e) from None
    return RunResult(
        out,
        exp.total_games,
        sum(r.games for r in receipts),
        len(receipts),
        time.perf_counter() - started,
        times["play_s"],
        sum(r.errors for r in receipts),
        compile_seconds=times["compile_s"],
    )


def _check_options(
    jobs: int | None, backend: str, scheduler: str | None, resume: bool = False, fresh: bool = False
) -> int:
    if backend not in BACKENDS:
        raise LabError(f"--backend {backend} is not allowed; allowed values: {', '.join(BACKENDS)}")
    if scheduler is not None and backend != "dask":
        raise LabError("--scheduler is for --backend dask; add --backend dask or drop it")
    if resume and fresh:
        raise LabError("--resume keeps the records in --out and --fresh deletes them; give one")
    if scheduler is not None:
        check_scheduler_address(scheduler)
    if backend == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise LabError(
                "--backend dask needs Dask: pip install 'daitenka-lab[dask]' (or "
                "pip install 'dask[distributed]')"
            ) from None
    if jobs is None:
        from joblib import cpu_count

        return cpu_count()  # the cores this process may use (cgroup limits included)
    if jobs < 1:
        raise LabError(f"--jobs {jobs} is not allowed; allowed values: whole numbers ≥ 1")
    return jobs


def check_scheduler_address(address: str) -> None:
    """A --scheduler address's port, read before any connection is tried: a port that is not a
    whole number 1–65535 is one line saying so (not Python's ``invalid literal for int()`` nor a
    15 s connection time-out)."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme not in ("tcp", "tls"):
        return  # inproc://, ucx://, …: Dask reads those itself
    host, colon, port = rest.rstrip("/").rpartition(":")
    if not colon or not host or (":" in host and not host.endswith("]")):
        return  # no port (or a bare IPv6 address): Dask's own message says so
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise LabError(
            f"--scheduler {address}: port \"{port}\" is not a port number; "
            "allowed values: whole numbers 1–65535 (`dask scheduler` prints "
            "tcp://HOST:PORT, port 8786 by default)"
        )


def _make_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise LabError(
            f"--out {out}: cannot create the folder ({_reason(e)}); choose a folder you can write"
        ) from None


def _reason(e: OSError) -> str:
    if e.errno == errno.ENOTDIR:
        return "a part of the path is a file"
    return f"{e.strerror or e}, errno {e.errno}" if e.errno else str(e)


def _write_failed(out: Path, e: OSError) -> LabError:
    fix = (
        "free some space" if e.errno in (errno.ENOSPC, errno.EDQUOT) else "make the folder writable"
    )
    return LabError(
        f"--out {out}: writing the records failed ({_reason(e)}); the chunks "
        f"written so far are kept — {fix}, then run the same command with --resume"
    )


def _set_aside_derived(out: Path, console) -> None:
    """``--fresh``: what the lab made from the records just deleted — the report (``lab
    report``'s default pages), ``lab value``'s and ``lab balance``'s folders — must not sit
    beside the new records as if it described them. It is moved, not deleted (a value or
    balance search can take hours), into stale/<time>/; files of the user's own stay."""
    derived = [out / name for name in DERIVED if (out / name).exists()]
    if not derived:
        return
    dest = out / STALE / datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    k = 1
    while dest.exists():
        k += 1
        dest = dest.with_name(f"{dest.name.split('.')[0]}.{k}")
    dest.mkdir(parents=True)
    for p in derived:
        p.rename(dest / p.name)
    names = ", ".join(p.name + ("/" if (dest / p.name).is_dir() else "") for p in derived)
    progress.note(
        console,
        f"--fresh: {names} came from the old records; moved to {dest}/ "
        "(lab report, lab value and lab balance make them again)",
    )


def _check_written(out: Path, man: dict, console) -> None:
    """Verify the chunks already in the folder against the manifest: a damaged one is deleted
    (and so replayed); one written after the manifest was last saved is adopted."""
    for chunk_id, problem in records.damaged_chunks(out, man).items():
        records.delete_chunk(out, chunk_id)
        progress.note(console, f"chunk {chunk_id}: {problem}; replaying it")
    tables = records.kinds(out)
    for chunk_id in records.written_chunks(out):
        entry = man["chunks"][chunk_id]
        if not entry.get("files"):
            entry["files"] = {
                kind: {
                    "rows": _rows(out, kind, chunk_id),
                    "sha256": records.file_digest(records.chunk_path(out, kind, chunk_id)),
                }
                for kind in tables
            }


def _rows(out, kind, chunk_id) -> int:
    import pyarrow.parquet as pq

    return pq.read_metadata(records.chunk_path(out, kind, chunk_id)).num_rows


def _close(man, out, session, receipts, times, started, status) -> None:
    """Record the session's timings and the folder's status in the manifest."""
    played = sum(r.games for r in receipts)
    busy = sum(r.seconds for r in receipts)
    play_s = times["play_s"]
    session.update(
        {
            "status": status,
            "compile_s": round(times["compile_s"], 3),
            "play_s": round(play_s, 3),
            "total_s": round(time.perf_counter() - started, 3),
            "games_played": played,
            "chunks_played": len(receipts),
            "games_per_s": round(played / play_s, 1) if play_s else None,
            "worker_busy_s": round(busy, 3),
            "errors": sum(r.errors for r in receipts),
        }
    )
    sessions = man["sessions"]
    total = sum(s.get("games_played", 0) for s in sessions)
    secs = sum(s.get("play_s", 0) for s in sessions)
    man["throughput"] = {
        "games_played": total,
        "play_s": round(secs, 3),
        "games_per_s": round(total / secs, 1) if secs else None,
    }
    man["chunks_written"] = len(records.written_chunks(out))
    if status == "complete" and man["chunks_written"] != len(man["chunks"]):
        status = "incomplete"  # a chunk file vanished under the run: --resume replays it
    man["status"] = status
    manifest.write(out, man)


# ------------------------------------------------------------------------------------ dispatch
