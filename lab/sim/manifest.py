"""manifest.json: what a results folder holds and how it was made, and the resume check.

Owns the manifest's content (the resolved config and its fingerprint, package versions, git
commit, a digest of the engine, bot and card sources, the chunk plan, status, and one timing entry
per session that worked on the folder, and each written chunk's rows and checksum) and the decision whether a run may use an output folder: a folder holding another
experiment, or records made by other engine code, is refused with one line saying what differs;
a complete one is reported as such (its summary is shown, nothing is played). It plays nothing;
the file is read and written atomically by ``lab.records``.
"""

from __future__ import annotations

import hashlib
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from lab.errors import LabError

# the file itself is lab.records' (below stats and sim); the runner calls manifest.read/write
from lab.records import MANIFEST as NAME
from lab.records import read_manifest as read
from lab.records import write_manifest as write  # noqa: F401
from lab.records import written_chunks
from lab.sim import lock
from lab.games.protocol import Experiment

SCHEMA = 1
_LAB = Path(__file__).resolve().parent.parent
PACKAGES = (
    "daitenka-lab",
    "numpy",
    "numba",
    "pandas",
    "pyarrow",
    "joblib",
    "rich",
    "dask",
    "distributed",
)


# A search (lab balance, lab value) starts hundreds of short runs a minute, each writing a
# manifest: what does not change while a process runs is read once, the git state at most once
# a GIT_EVERY_S (two subprocesses, ~20 ms), the sources' digest again only when a file changed.
GIT_EVERY_S = 60.0
_versions: dict | None = None
_git: tuple[float, dict | None] | None = None
_digests: dict[str, tuple[tuple, str]] = {}  # game → (its files' paths, times, sizes; digest)


def versions() -> dict:
    """The Python and package versions this process runs (read once: they cannot change)."""
    global _versions
    if _versions is None:
        found = {"python": platform.python_version()}
        for name in PACKAGES:
            try:
                found[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                found[name] = None
        _versions = found
    return dict(_versions)


def git_commit() -> dict | None:
    """The checkout's commit and whether it had uncommitted changes (None outside git), as
    read in the last GIT_EVERY_S seconds."""
    global _git
    now = time.monotonic()
    if _git is None or now - _git[0] >= GIT_EVERY_S:
        _git = (now, _read_git())
    return None if _git[1] is None else dict(_git[1])


def _read_git() -> dict | None:
    try:
        head = subprocess.run(
            ["git", "-C", str(_LAB), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        if head.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "-C", str(_LAB), "status", "--porcelain", "--", "."],
            capture_output=True,
            text=True,
            timeout=10,
        )
        return {"commit": head.stdout.strip(), "dirty": bool(dirty.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        return None


def code_digest(game: str) -> str:
    """A hash of every source and data file of ``game``'s folder (``lab/games/<game>/``: its
    engine, bots, rules, cards and armies) and of the shared kernel helpers (``lab/jit/``):
    records made by different code never mix in one folder."""
    files = sorted(
        p
        for folder in (_LAB / "games" / game, _LAB / "jit")
        for p in folder.rglob("*")
        if p.suffix in (".py", ".toml", ".json") and "__pycache__" not in p.parts
    )
    seen = tuple((str(p), (st := p.stat()).st_mtime_ns, st.st_size) for p in files)
    known = _digests.get(game)
    if known is not None and known[0] == seen:
        return known[1]
    h = hashlib.sha256()
    for p in files:
        h.update(p.relative_to(_LAB).as_posix().encode())
        h.update(p.read_bytes())
    digest = h.hexdigest()[:16]
    _digests[game] = (seen, digest)
    return digest


def new(exp: Experiment, plan: list[dict]) -> dict:
    return {
        "schema": SCHEMA,
        "status": "running",
        "fingerprint": exp.fingerprint(),
        "code_digest": code_digest(exp.game),
        "config": exp.resolved(),
        "games": exp.total_games,
        "cells": exp.n_cells,
        "versions": versions(),
        "git": git_commit(),
        "command": " ".join([Path(sys.argv[0]).name] + sys.argv[1:]),
        "chunks": plan,
        "chunks_written": 0,
        "sessions": [],
        "throughput": None,
    }


@dataclass
class Folder:
    """What a results folder holds for this run: the manifest to continue (None: start anew)
    and how many of the experiment's chunks are written."""

    manifest: dict | None
    written: int = 0
    total: int = 0

    @property
    def complete(self) -> bool:
        return self.manifest is not None and self.written == self.total


def check_folder(out: Path, exp: Experiment, resume: bool, fresh: bool = False) -> Folder:
    """Whether this run may use ``out``, read without writing anything: a LabError (one line)
    saying why not, else what the folder holds. A complete folder is fine with or without
    --resume (the caller shows it); a folder whose start wrote no chunk is begun again."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise LabError(f"--out {out} is a file; give a folder")
    old = read(out)
    if old is None:
        # value/: `lab value` keeps its tables inside the experiment's folder
        if out.is_dir() and any(
            p
            for p in out.iterdir()
            if p.name not in ("games", "cards", "value")
            and not p.name.startswith(lock.PREFIX)
            and not p.name.startswith(f".{NAME}.")
        ):
            raise LabError(
                f"--out {out} is not empty and holds no {NAME}; choose a new or empty folder"
            )
        return Folder(None)
    if fresh:
        return Folder(None)  # its records are deleted once the run holds the folder's lock
    if old.get("fingerprint") != exp.fingerprint():
        diff = _differences(old.get("config", {}), exp.resolved())
        raise LabError(
            f"--out {out} holds the records of another experiment "
            f"(\"{old.get('config', {}).get('name', '?')}\"; differs in: "
            f"{', '.join(diff) or 'its fingerprint'}); choose another --out, or add "
            "--fresh to replace them"
        )
    if old.get("code_digest") != (now := code_digest(exp.game)):
        raise LabError(
            f"--out {out} was written by other engine, bot or card code (digest "
            f"{old.get('code_digest')}, now {now}); resuming would mix "
            "records of two versions — choose another --out, or add --fresh to "
            "replace them"
        )
    written, total = len(written_chunks(out)), len(old.get("chunks", []))
    if written == 0:
        return Folder(None, 0, total)
    if written < total and not resume:
        raise LabError(
            f"--out {out} holds {written} of {total} chunks of this experiment (an "
            "interrupted run); add --resume to finish it, or --fresh to start over"
        )
    return Folder(old, written, total)


def _differences(old: dict, new: dict) -> list[str]:
    keys = [k for k in new if k not in ("name", "source")]
    return [k for k in keys if old.get(k) != new.get(k)]
