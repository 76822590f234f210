"""Experiments started from the page: one child process each (``lab.serve.child``), their
progress, stop and resume.

Owns the jobs a server started (``Jobs``): the spec and status files and the log of each under
the results folder's ``.serve/jobs/``, the refusal of a second job on a folder a live job or run
holds (the runner's own folder lock refuses it too, and says whose it is), SIGINT to stop (the
runner keeps every finished chunk, as after Ctrl-C), and the progress a page polls: games written
(read from the folder itself — the manifest's chunk plan and the chunk files on disk, so a run
started by ``lab run`` in a shell shows its progress too), games per second over the last half
minute and the time left. It plays nothing and writes no record.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from lab.errors import LabError

KINDS = ("run", "value", "balance")
RATE_WINDOW_S = 30.0  # games/s over this many seconds, as the CLI's bar


@dataclass
class Job:
    id: str
    kind: str
    config: str  # the config's name in the page (configs/… or uploads/…)
    out: Path
    records: Path  # the results folder its runner writes (value: OUT/records)
    proc: subprocess.Popen
    status_path: Path
    log_path: Path
    started: float = field(default_factory=time.time)
    options: dict = field(default_factory=dict)
    samples: deque = field(default_factory=lambda: deque(maxlen=600))
    stop_asked: bool = False
    config_path: str = ""

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    @property
    def active(self) -> bool:
        """Alive and not yet finished (a finished child may take a moment to exit; it has
        released the folder by then)."""
        return self.alive and self.status().get("state") in ("starting", "running")

    def status(self) -> dict:
        try:
            data = json.loads(self.status_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {"state": "starting", "message": "starting"}
        if not self.alive and data.get("state") in ("starting", "running"):
            code = self.proc.returncode
            data = {
                **data,
                "state": "failed",
                "message": f"the job's process ended (exit code {code}) before it finished; "
                f"its log: {self.log_path.name}",
            }
        return data


def folder_progress(out: Path) -> tuple[int, int] | None:
    """(games written, games in the experiment) of a results folder, from its manifest's chunk
    plan and the chunk files present; None before it has a manifest."""
    from lab import records
    from lab.sim import manifest

    try:
        man = manifest.read(out)
    except LabError:
        return None
    if not man or not man.get("chunks"):
        return None
    sizes = {c["id"]: c["deals"][1] - c["deals"][0] for c in man["chunks"]}
    try:
        written = records.written_chunks(out)
    except (OSError, LabError, ValueError):
        return None
    return sum(sizes.get(i, 0) for i in written), int(man.get("games") or sum(sizes.values()))


class Jobs:
    def __init__(self, results: Path):
        self.results = results
        self.folder = results / ".serve" / "jobs"
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ start, stop
    def start(self, kind: str, config: Path, config_name: str, out: Path, **options) -> Job:
        """Start ``kind`` (run, value, balance) on ``config`` into ``out``; a one-line
        LabError when the folder is busy."""
        from lab.sim import lock

        if kind not in KINDS:
            raise LabError(
                f"job kind \"{kind}\" is not allowed; allowed values: {', '.join(KINDS)}"
            )
        records = out / "records" if kind == "value" else out
        with self._lock:
            for job in self._jobs.values():
                if job.active and (
                    job.out == out
                    or job.records == records
                    or out in job.out.parents
                    or job.out in out.parents
                ):
                    raise LabError(
                        f"{_rel(out, self.results)} is being written by the page's "
                        f"{job.kind} of {job.config} (job {job.id}); stop it first "
                        "or wait for it"
                    )
            for folder in {out, records}:
                lock.refuse_if_busy(folder)  # a `lab run` from a shell, say
            self.folder.mkdir(parents=True, exist_ok=True)
            job_id = time.strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)
            spec_path = self.folder / f"{job_id}.json"
            status_path = self.folder / f"{job_id}.status.json"
            log_path = self.folder / f"{job_id}.log"
            spec = {
                "kind": kind,
                "config": str(config),
                "out": str(out),
                "status": str(status_path),
                **options,
            }
            spec_path.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
            with open(log_path, "wb") as log:
                # its own session: the server's terminal Ctrl-C reaches it only through stop()
                proc = subprocess.Popen(
                    [sys.executable, "-m", "lab.serve.child", str(spec_path)],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                    env={**os.environ, "PYTHONUNBUFFERED": "1"},
                )
            job = Job(
                job_id,
                kind,
                config_name,
                out,
                records,
                proc,
                status_path,
                log_path,
                options=options,
                config_path=str(config),
            )
            self._jobs[job_id] = job
        return job

    def stop(self, job_id: str) -> Job:
        job = self.get(job_id)
        if job.alive:
            job.stop_asked = True
            with contextlib.suppress(ProcessLookupError):
                os.kill(job.proc.pid, signal.SIGINT)
        return job

    def stop_all(self, wait_s: float = 20.0) -> None:
        """Stop every live job (server shutdown); after ``wait_s`` a job still alive is
        killed (its finished chunks stay; resume replays what it had in flight)."""
        live = [j for j in self._jobs.values() if j.alive]
        for job in live:
            self.stop(job.id)
        end = time.monotonic() + wait_s
        for job in live:
            with contextlib.suppress(subprocess.TimeoutExpired):
                job.proc.wait(max(0.1, end - time.monotonic()))
            if job.alive:
                job.proc.kill()

    def get(self, job_id: str) -> Job:
        try:
            return self._jobs[job_id]
        except KeyError:
            raise LabError(f"no job {job_id} on this server") from None

    def all(self) -> list[Job]:
        return sorted(self._jobs.values(), key=lambda j: j.started, reverse=True)

    # ------------------------------------------------------------------ progress
    def progress(self, job_id: str) -> dict:
        """What the page shows of a job: state, one-line message, games done of total, games
        per second, seconds left."""
        job = self.get(job_id)
        st = job.status()
        out = {
            "id": job.id,
            "kind": job.kind,
            "config": job.config,
            "out": _rel(job.out, self.results),
            "state": st.get("state", "starting"),
            "message": self._named(job, st.get("message", "")),
            "alive": job.alive,
            "elapsed": time.time() - job.started,
            "done": None,
            "total": st.get("total"),
            "fraction": st.get("fraction"),
            "rate": None,
            "eta": None,
            "front": st.get("front"),
        }
        if job.kind in ("run", "value"):
            got = folder_progress(job.records)
            if got is not None:
                done, total = got
                now = time.monotonic()
                job.samples.append((now, done))
                out.update(done=done, total=total, fraction=done / total if total else 0.0)
                rate = _rate(job.samples, now)
                if rate:
                    out["rate"] = rate
                    out["eta"] = (total - done) / rate if out["state"] == "running" else 0.0
            if out["state"] == "done":
                out["fraction"] = 1.0
        if out["state"] == "done" and st.get("games_per_s"):
            out["rate"] = st["games_per_s"]
        return out

    def _named(self, job: Job, message: str) -> str:
        """A message names the config and the folders as the page does (configs/…,
        results/NAME), not by where this server's folders lie."""
        if job.config_path:
            message = message.replace(job.config_path, job.config)
        return message.replace(str(self.results), self.results.name)


def _rate(samples: deque, now: float) -> float | None:
    """Games per second over the last RATE_WINDOW_S seconds of samples."""
    recent = [(t, d) for t, d in samples if now - t <= RATE_WINDOW_S]
    if len(recent) < 2:
        return None
    (t0, d0), (t1, d1) = recent[0], recent[-1]
    if t1 - t0 < 0.5 or d1 <= d0:
        return None
    return (d1 - d0) / (t1 - t0)


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


__all__ = ["Job", "Jobs", "folder_progress"]
