"""The results-folder lock: one run writes a folder at a time.

Owns ``hold(out)``: an operating-system file lock (``filelock``) on ``OUT/.lock`` for the run's
whole life, and beside it ``OUT/.lock-owner.json`` naming the holder's host, pid, start time and
command, so a refused run can say who holds the folder. The kernel frees the file lock when its
holder dies, even by SIGKILL; the owner file then stays behind, and the next run takes the folder
over with a one-line note. An owner file naming another host is never taken over: on a shared
file system the other host's lock may not be visible here, so the run is refused and the host
named. This module decides nothing about records; it only keeps two writers apart.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path

from filelock import FileLock, Timeout

from lab.errors import LabError

LOCK = ".lock"
OWNER = ".lock-owner.json"
PREFIX = ".lock"  # the lock's files (and their temp files) never count as a folder's content


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def read_owner(out: Path) -> dict | None:
    try:
        data = json.loads((Path(out) / OWNER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def describe(owner: dict | None) -> str:
    if not owner:
        return "host and pid unknown"
    return (
        f"host {owner.get('host', '?')}, pid {owner.get('pid', '?')}, started "
        f"{owner.get('started', '?')}"
    )


def refuse_if_busy(out: Path) -> None:
    """A LabError when a live run holds the folder now (checked before anything else, so the
    user hears of the other run rather than of the half-written folder it is making)."""
    path = Path(out) / LOCK
    if not path.is_file():
        return
    probe = FileLock(str(path), timeout=0)
    try:
        probe.acquire()
    except Timeout:
        raise _busy(Path(out)) from None
    except OSError:
        return  # unreadable here: ``hold`` reports it if the run gets that far
    probe.release()


def _busy(out: Path) -> LabError:
    return LabError(
        f"--out {out} is being written by another run "
        f"({describe(read_owner(out))}); wait for it to finish, or choose another "
        "--out"
    )


@contextlib.contextmanager
def hold(out: Path, note=None):
    """Hold the folder's lock for the ``with`` body; ``note(message)`` hears of a take-over.

    A LabError (one line) when another live run holds it, or a run on another host is named."""
    out = Path(out)
    lock = FileLock(str(out / LOCK), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise _busy(out) from None
    except OSError as e:
        raise LabError(f"--out {out}: cannot write in this folder ({e.strerror})") from None
    try:
        _take_over(out, read_owner(out), note)
        _write_owner(out)
        yield
    finally:
        with contextlib.suppress(OSError):
            (out / OWNER).unlink()
        lock.release()


def _take_over(out: Path, owner: dict | None, note) -> None:
    if owner is None:
        return
    host, pid = owner.get("host"), owner.get("pid")
    if host != platform.node():
        raise LabError(
            f"--out {out} is locked by a run on another host ({describe(owner)}); "
            f"if that run has ended, delete {out / OWNER} and run again"
        )
    if isinstance(pid, int) and pid != os.getpid() and note is not None:
        # we hold the kernel's lock, so that process does not: it died without releasing it
        # (or its pid now belongs to another process)
        state = "no longer runs" if not _alive(pid) else "no longer holds it"
        note(f"took over {out}: the run that last held it ({describe(owner)}) {state}")


def _write_owner(out: Path) -> None:
    owner = {
        "host": platform.node(),
        "pid": os.getpid(),
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.argv[0]).name] + sys.argv[1:]),
    }
    tmp = out / f".{OWNER}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(owner) + "\n", encoding="utf-8")
    os.replace(tmp, out / OWNER)
