"""The games the lab hosts: a registry of names and, for each, its entry — the object through
which the runner (``lab.sim``), seeding, records, ``lab.stats``, ``lab.report`` and the commands
reach a game. What an entry, its game object and its experiment provide is the typed protocol in
``lab.games.protocol`` (``GameEntry``, ``GameState``, ``Experiment``); every registered game
passes the conformance suite (tests/test_game_conformance.py). docs/games.md says how to add one.

Each game keeps its compiled engine and bots in its own package; an entry only wraps them, so
大天下 plays exactly the kernels it played before it was one of several. An entry's module is
imported on first use: naming a game costs nothing until it is asked for.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from lab.errors import did_you_mean, LabError, read_toml
from lab.games.protocol import GameEntry

DEFAULT = "daitenka"


@dataclass(frozen=True)
class Registered:
    name: str  # the key a config writes: game = "rumble_nation"
    display: str  # how a page names it: 大天下
    module: str  # the module whose ``GAME`` is the entry (a ``GameEntry``)

    def entry(self) -> GameEntry:
        return importlib.import_module(self.module).GAME


class Registry(Mapping):
    """name → entry; an entry's module is imported when the entry is first asked for."""

    def __init__(self, *games: Registered):
        self._games = {g.name: g for g in games}

    def __getitem__(self, name: str) -> GameEntry:
        return self._games[name].entry()

    def __iter__(self) -> Iterator[str]:
        return iter(self._games)

    def __len__(self) -> int:
        return len(self._games)

    def display(self, name: str) -> str:
        return self._games[name].display


GAMES = Registry(
    Registered("daitenka", "大天下", "lab.games.daitenka.entry"),
    Registered("rumble_nation", "Rumble Nation", "lab.games.rumble_nation.platform"),
)


def get(name: str | None, source: str | None = None, key: str = "game") -> GameEntry:
    """The registered game called ``name`` (None: 大天下); an unknown one is one line."""
    if name is None:
        return GAMES[DEFAULT]
    if isinstance(name, str) and name in GAMES:
        return GAMES[name]
    did = did_you_mean(str(name), GAMES)
    raise LabError(
        f"{key} = {name!r} is not a game of the lab; {did}allowed values: {', '.join(GAMES)}",
        source=source,
    )


def of_config(data: dict, source: str | None = None) -> GameEntry:
    """The game an experiment or scenario file names with ``game = "…"`` (default 大天下)."""
    return get(data.get("game") if isinstance(data, dict) else None, source)


def of_results(out: str | Path) -> GameEntry:
    """The game whose records a results folder holds (its manifest names it; a folder written
    before games were registered, or without a manifest, holds 大天下's)."""
    try:
        man = json.loads((Path(out) / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return GAMES[DEFAULT]
    return get((man.get("config") or {}).get("game"), source=str(out))


def of_scenario_file(path: Path):
    """The game a scenario file names (``game = "…"`` at top level or in its first
    ``[[scenario]]``; default 大天下)."""
    data = read_toml(path, "a scenario .toml file")
    tables = data.get("scenario")
    first = tables[0] if isinstance(tables, list) and tables and isinstance(tables[0], dict) else {}
    return get(data.get("game", first.get("game")), source=str(path))


def each_outcome(paths, log: bool = False, pool=None):
    """Load and run every scenario of ``paths`` (files, or folders of *.toml files), yielding
    each ``Outcome`` as soon as it is known. Every file is read and every position set up before
    the first scenario plays: a malformed file (bad TOML, an unknown key, a position or step the
    rules cannot hold) is a ``LabError`` — one line, exit 2 — before any outcome, while a
    scenario whose steps or expectations are not met is a failed ``Outcome`` (exit 1)."""
    ready = []
    for path in paths:
        p = Path(path)
        for f in sorted(p.glob("*.toml")) if p.is_dir() else [p]:
            ready += of_scenario_file(f).prepare_scenarios(f, log=log, pool=pool)
    for start in ready:
        yield start()


__all__ = [
    "DEFAULT",
    "GAMES",
    "GameEntry",
    "each_outcome",
    "Registered",
    "Registry",
    "get",
    "of_config",
    "of_results",
    "of_scenario_file",
]
