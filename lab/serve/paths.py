"""Where the web app may read and write: its results folder and the configs folders it was given,
nothing else.

Owns ``Roots`` — the results folder (runs, reports, value and balance folders, the page's own
replays, scenarios, uploaded decks and configs) and the read-only configs folders — and every
check that turns a name from a request into a path: relative, no ``..``, no absolute path, no
symlink leading out (each refused with a one-line ``LabError``); the references inside an
experiment config (deck files, extra card files, a Rumble Nation map) held to the same roots;
and the size limit and name rules of uploaded files. It reads and writes no file of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from lab.errors import LabError

MAX_UPLOAD = 256 * 1024  # bytes: a config, deck or card file is a few kB
UPLOADS = "configs"  # inside the results folder: configs uploaded or edited in the page
DECKS = "decks"  # inside the results folder: deck files uploaded for play
REPLAYS = "replays"  # inside the results folder: the page's matches (as lab play's)
SCENARIOS = "scenarios"  # inside the results folder: matches written as scenario files
PRIVATE = ".serve"  # inside the results folder: the page's job specs, status and logs
NOT_RESULTS = {UPLOADS, DECKS, REPLAYS, SCENARIOS, PRIVATE}  # never listed as experiments
_NAME = re.compile(r"^[\w][\w.-]{0,79}$")  # a file or folder name a user may give (\w: 織田 too)


@dataclass(frozen=True)
class Roots:
    results: Path  # resolved
    configs: tuple[Path, ...]  # resolved, read only

    @classmethod
    def of(cls, results: str | Path, configs=()) -> Roots:
        res = Path(results).resolve()
        return cls(res, tuple(Path(c).resolve() for c in configs))

    @property
    def uploads(self) -> Path:
        return self.results / UPLOADS

    def allowed(self) -> tuple[Path, ...]:
        return (self.results, *self.configs)

    # ------------------------------------------------------------------ names → paths
    def result(self, rel: str) -> Path:
        """A path inside the results folder named by ``rel`` (e.g. "default", "default/value")."""
        return inside(self.results, rel, "the results folder")

    def config(self, ref: str) -> Path:
        """The config file a page names: ``configs/REL`` (in the k-th configs folder,
        ``configs1/REL`` …) or ``uploads/REL`` (uploaded or edited in the page)."""
        root_name, _, rel = str(ref).partition("/")
        if root_name == "uploads":
            path = inside(self.uploads, rel, "the uploaded configs")
        elif root_name.startswith("configs") and root_name[7:] in ("", *map(str, range(1, 10))):
            k = int(root_name[7:] or 0)
            if k >= len(self.configs):
                raise LabError(f"config \"{ref}\": no such configs folder")
            path = inside(self.configs[k], rel, "the configs folder")
        else:
            raise LabError(
                f"config \"{ref}\" is not in a configs folder of this server (give "
                "configs/NAME.toml or uploads/NAME.toml)"
            )
        if path.suffix != ".toml":
            raise LabError(f"config \"{ref}\" is not a .toml file")
        return path

    def config_ref(self, path: Path) -> str:
        """The name the page uses for a config file (the inverse of ``config``)."""
        path = Path(path).resolve()
        if path.is_relative_to(self.uploads.resolve()):
            return "uploads/" + path.relative_to(self.uploads.resolve()).as_posix()
        for k, root in enumerate(self.configs):
            if path.is_relative_to(root):
                return f"configs{k or ''}/" + path.relative_to(root).as_posix()
        raise LabError(f"{path} is not in a configs folder of this server")

    def config_files(self) -> list[tuple[str, Path]]:
        """Every experiment config the page offers: (name, path), the configs folders' first."""
        found = []
        for root in (*self.configs, self.uploads):
            if not root.is_dir():
                continue
            for p in sorted(root.rglob("*.toml")):
                if self.within(p) and _is_experiment(p):
                    found.append((self.config_ref(p), p))
        return found

    def within(self, path: Path) -> bool:
        """True when ``path`` (symlinks followed) lies under one of the roots."""
        real = Path(path).resolve()
        return any(real == r or real.is_relative_to(r) for r in self.allowed())

    # ------------------------------------------------------------------ references in a config
    def check_references(self, data: dict, base: Path, source: str) -> None:
        """Every file an experiment config names — deck files among ``armies``,
        ``extra_cards``, a Rumble Nation ``map`` — must lie under the roots: one ``LabError``
        for the first that does not (checked before any of them is read)."""
        for key, value in _references(data):
            if not isinstance(value, str):
                continue
            if key == "map" and value == "default":
                continue
            if key == "armies" and not _is_file_name(value):
                continue  # an army key (oda) or printed name (織田)
            target = (base / value) if not Path(value).is_absolute() else Path(value)
            if not self.within(target):
                raise LabError(
                    f"{key} names \"{value}\", outside the results and configs "
                    "folders this server may read; copy the file into a configs "
                    "folder",
                    source=source,
                )


def inside(root: Path, rel: str, what: str) -> Path:
    """``root/rel``, or a one-line LabError when ``rel`` would lead out of ``root``."""
    rel = str(rel or "")
    if "\x00" in rel or "\\" in rel:
        raise LabError(f"\"{rel}\" is not a path inside {what}")
    pure = PurePosixPath(rel)
    if pure.is_absolute() or any(part == ".." for part in pure.parts):
        raise LabError(
            f"\"{rel}\" is outside {what}; paths are relative to it and never contain .."
        )
    path = (root / pure).resolve()
    if not (path == root.resolve() or path.is_relative_to(root.resolve())):
        raise LabError(f"\"{rel}\" leads outside {what}")
    return path


def safe_name(name: str, suffix: str = ".toml") -> str:
    """An uploaded file's name, kept only when it is a plain name (letters, digits, _ - .)."""
    stem = str(name or "")
    if "/" in stem or "\\" in stem:  # a browser sends the bare name; a path is someone trying
        raise LabError(f"file name \"{name}\" is not allowed; give a name, not a path")
    if stem.endswith(suffix):
        stem = stem[: -len(suffix)]
    if not _NAME.match(stem) or stem.startswith("."):
        raise LabError(
            f"file name \"{name}\" is not allowed; use letters, digits, _ - and . "
            f"(at most 80), ending in {suffix}"
        )
    return stem + suffix


def check_size(data: bytes, what: str) -> None:
    if len(data) > MAX_UPLOAD:
        raise LabError(f"{what} is {len(data):,} bytes; uploads are at most {MAX_UPLOAD:,} bytes")


def decode(data: bytes, what: str) -> str:
    """An uploaded text file's content (UTF-8), or one line saying why not."""
    check_size(data, what)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise LabError(f"{what} is not UTF-8 text") from None


def _is_file_name(value: str) -> bool:
    p = PurePosixPath(value)
    return p.suffix == ".toml" or len(p.parts) > 1


def _references(data: dict):
    """(key, value) of every string an experiment config may use as a file path."""

    def flat(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                yield from flat(y)
        else:
            yield x

    for v in flat(data.get("armies", [])):
        yield "armies", v
    for v in flat(data.get("extra_cards", [])):
        yield "extra_cards", v
    for table in (data, data.get("rules"), data.get("overrides"), data.get("grid")):
        if isinstance(table, dict) and "map" in table:
            for v in flat(table["map"]):
                yield "map", v


def _is_experiment(path: Path) -> bool:
    """A configs file that is an experiment (not a deck, card or scenario file beside one)."""
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True  # shown, so that choosing it shows its one-line error
    if any(k in data for k in ("cards", "steps", "scenario", "ability")):
        return False
    return any(k in data for k in ("armies", "games", "bots", "tiers", "grid", "game"))


__all__ = ["MAX_UPLOAD", "Roots", "check_size", "decode", "inside", "safe_name"]
