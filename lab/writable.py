"""Whether a path the user named for output can be written, asked before the work that fills it.

A report takes a minute to compute and a match in the terminal longer to play; an output path
that cannot be written must fail first, in one line naming the option, the path and the reason —
not after the work with a traceback or a lost file. The checks write nothing that stays: a missing
folder is not created (the command creates it when it writes), an existing file is opened for
writing without being changed, and a folder is proved writable by a probe file removed at once
(it answers for every reason a creation fails — permissions, a read-only file system, a mount
— where ``os.access`` answers for permissions alone, and root passes those). This module only
checks; it never writes a result.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from lab.errors import LabError


FIX = "choose a path you can write"


def check_file(path: str | Path, option: str, what: str = "a file path", fix: str = FIX) -> Path:
    """``path`` can be written as a file (created, or overwritten) — else one ``LabError``
    naming ``option`` (e.g. ``--out``), ending with ``fix``."""
    path = Path(path)
    if path.is_dir():
        raise LabError(f"{option} {path} is a folder; give {what}")
    if path.exists():
        try:
            with open(path, "r+b"):
                pass
        except OSError as e:
            raise _refused(option, path, e, "cannot be overwritten", fix) from None
        return path
    _check_creatable(path.parent, option, path, fix)
    return path


def check_folder(path: str | Path, option: str, fix: str = FIX) -> Path:
    """``path`` is (or can be made) a folder that files can be written into."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise LabError(f"{option} {path} is a file, not a folder; give a folder path")
    if path.is_dir():
        _probe(path, option, path, fix)
    else:
        _check_creatable(path, option, path, fix)
    return path


def _check_creatable(folder: Path, option: str, target: Path, fix: str) -> None:
    """``folder`` exists and takes files, or its nearest existing ancestor does (the missing
    part is created when the command writes)."""
    here = folder
    while not here.exists():
        if here.is_symlink():  # a dangling link: creating through it fails later
            raise LabError(f"{option} {target}: {here} is a broken link; {fix}")
        if here.parent == here:
            break
        here = here.parent
    if not here.is_dir():
        raise LabError(
            f"{option} {target}: {here} is a file, so no folder can be made there; {fix}"
        )
    _probe(here, option, target, fix)


def _probe(folder: Path, option: str, target: Path, fix: str) -> None:
    try:
        fd, name = tempfile.mkstemp(prefix=".lab-write-check-", dir=folder)
    except OSError as e:
        raise _refused(option, target, e, "cannot be written", fix) from None
    os.close(fd)
    try:
        os.unlink(name)
    except OSError:
        pass


def _refused(option: str, target: Path, e: OSError, verb: str, fix: str) -> LabError:
    reason = {
        errno.EROFS: "read-only file system",
        errno.EACCES: "permission denied",
        errno.EPERM: "operation not permitted",
        errno.ENOSPC: "no space left",
        errno.EDQUOT: "disk quota exceeded",
    }.get(e.errno, e.strerror or str(e))
    return LabError(f"{option} {target} {verb} ({reason}); {fix}")
