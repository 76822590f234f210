"""manifest.json: what a results folder holds and how it was made, and the resume check.

Owns the manifest's content (the resolved config and its fingerprint, package versions, git
commit, a digest of the engine, bot and card sources, the chunk plan, status, and one timing entry
per session that worked on the folder), its atomic writes, and the decision whether a run may use
an output folder: a folder holding another experiment, or records made by other engine code, is
refused with one line saying what differs. It plays nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from lab.errors import LabError
from lab.sim.config import Experiment
from lab.sim.records import written_chunks

NAME = "manifest.json"
SCHEMA = 1
_LAB = Path(__file__).resolve().parent.parent
PACKAGES = ("daitenka-lab", "numpy", "numba", "pandas", "pyarrow", "joblib", "rich", "dask",
            "distributed")


def versions() -> dict:
    found = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def git_commit() -> dict | None:
    """The checkout's commit and whether it had uncommitted changes (None outside git)."""
    try:
        head = subprocess.run(["git", "-C", str(_LAB), "rev-parse", "HEAD"],
                              capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", str(_LAB), "status", "--porcelain", "--", "."],
                               capture_output=True, text=True, timeout=10)
        return {"commit": head.stdout.strip(), "dirty": bool(dirty.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        return None


def code_digest() -> str:
    """A hash of every source and data file that decides what a game does (engine, bots, rules,
    card pool and armies): records made by different code never mix in one folder."""
    files = (sorted(_LAB.glob("engine/*.py")) + sorted(_LAB.glob("bots/*.py"))
             + [_LAB / "rules.py"] + sorted(_LAB.glob("cards/*.py"))
             + sorted(_LAB.glob("cards/*.toml")) + sorted(_LAB.glob("cards/decks/*.toml")))
    h = hashlib.sha256()
    for p in files:
        h.update(p.relative_to(_LAB).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def read(out: Path) -> dict | None:
    path = Path(out) / NAME
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise LabError(f"cannot read the manifest ({e}); this folder is not a usable results "
                       "folder — choose another --out", source=str(path)) from None


def write(out: Path, data: dict) -> None:
    """Atomically replace manifest.json (temp file, then rename)."""
    path = Path(out) / NAME
    tmp = path.with_name(f".{NAME}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def new(exp: Experiment, plan: list[dict]) -> dict:
    return {
        "schema": SCHEMA,
        "status": "running",
        "fingerprint": exp.fingerprint(),
        "code_digest": code_digest(),
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


def check_folder(out: Path, exp: Experiment, resume: bool) -> dict | None:
    """The folder's manifest when this run may continue it, None when it is new or empty;
    otherwise a LabError saying why the folder cannot be used."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise LabError(f"--out {out} is a file; give a folder")
    old = read(out)
    if old is None:
        # value/: `lab value` keeps its tables inside the experiment's folder
        if out.is_dir() and any(p for p in out.iterdir() if p.name not in ("games", "cards",
                                                                           "value")
                                and not p.name.startswith(f".{NAME}.")):
            raise LabError(f"--out {out} is not empty and holds no {NAME}; choose a new or "
                           "empty folder")
        return None
    if old.get("fingerprint") != exp.fingerprint():
        diff = _differences(old.get("config", {}), exp.resolved())
        raise LabError(f"--out {out} holds the records of another experiment "
                       f"(\"{old.get('config', {}).get('name', '?')}\"; differs in: "
                       f"{', '.join(diff) or 'its fingerprint'}); choose another --out or "
                       "delete that folder")
    if old.get("code_digest") != code_digest():
        raise LabError(f"--out {out} was written by other engine, bot or card code (digest "
                       f"{old.get('code_digest')}, now {code_digest()}); resuming would mix "
                       "records of two versions — choose another --out")
    if not resume:
        written, total = len(written_chunks(out)), len(old.get("chunks", []))
        state = "complete" if written == total else f"{written} of {total} chunks written"
        raise LabError(f"--out {out} already holds this experiment's records ({state}); add "
                       "--resume to finish it (or see its summary), or choose another --out")
    return old


def _differences(old: dict, new: dict) -> list[str]:
    keys = [k for k in new if k not in ("name", "source")]
    return [k for k in keys if old.get(k) != new.get(k)]
