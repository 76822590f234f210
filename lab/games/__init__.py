"""The games the lab hosts, behind one small protocol: a registry of names and the ``Game`` entry
through which the runner (``lab.sim``), seeding, records, ``lab.stats``, ``lab.report`` and the
commands reach a game.

A game is a module (its *platform module*) that provides, by name:

- ``DISPLAY``, ``PRESETS``, ``DEFAULT_PRESET``, ``seats(rules)`` and ``rules(preset, overrides,
  source)`` — the rule sets and how many seats they seat;
- ``new_game(rules, seed_words, first_seat)`` — a game object with ``legal_actions()``,
  ``step(action)``, ``observation(seat)`` and ``result()``;
- ``load_experiment(data, source, games, cards)`` — an experiment config with ``game = NAME``
  resolved to an experiment object (``name``, ``seed``, ``games``, ``total_games``, ``n_cells``,
  ``resolved()``, ``fingerprint()``);
- ``plan(exp)``, ``warm(job)`` and ``play_chunk(job, out)`` — the chunks of a run, a one-game
  warm-up that compiles the kernels, and a picklable function that plays one chunk and writes its
  record files (returning ``lab.sim.worker.Receipt``);
- ``RECORD_KINDS`` and ``schema(kind)`` — the record tables a chunk writes and their Arrow
  schemas; ``record_columns(rules)`` — the game's own columns, documented in docs/records.md;
- ``summary_tables(out)`` and ``build_report(results, fmt, out, **options)`` — what ``lab run``
  prints at the end and what ``lab report`` writes;
- ``prepare_scenarios(path)`` — a scenario file read and every position set up (a malformed
  file raises its ``LabError`` there), as callables that each play one and return its outcome.

Each game keeps its compiled engine and bots in its own package; a platform module only wraps
them, so 大天下 plays exactly the kernels it played before it was one of several. The modules
are imported on first use: naming a game costs nothing until it is played.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from lab.errors import LabError, closest

DEFAULT = "daitenka"


@dataclass(frozen=True)
class Game:
    name: str  # the key a config writes: game = "rumble_nation"
    display: str  # how a page names it: 大天下
    module: str  # the platform module (see above)

    def impl(self) -> ModuleType:
        return importlib.import_module(self.module)

    def __getattr__(self, attr):
        # entry.plan(exp), entry.PRESETS, …: the protocol's names, from the platform module
        if attr.startswith("_"):
            raise AttributeError(attr)
        return getattr(self.impl(), attr)


GAMES: dict[str, Game] = {
    "daitenka": Game("daitenka", "大天下", "lab.games.daitenka"),
    "rumble_nation": Game("rumble_nation", "Rumble Nation", "lab.games.rumble_nation.platform"),
}


def get(name: str | None, source: str | None = None, key: str = "game") -> Game:
    """The registered game called ``name`` (None: 大天下); an unknown one is one line."""
    if name is None:
        return GAMES[DEFAULT]
    if isinstance(name, str) and name in GAMES:
        return GAMES[name]
    hint = closest(str(name), GAMES)
    did = f"did you mean {', '.join(hint)}? " if hint else ""
    raise LabError(f"{key} = {name!r} is not a game of the lab; {did}allowed values: "
                   f"{', '.join(GAMES)}", source=source)


def of_config(data: dict, source: str | None = None) -> Game:
    """The game an experiment or scenario file names with ``game = "…"`` (default 大天下)."""
    return get(data.get("game") if isinstance(data, dict) else None, source)


def of_results(out: str | Path) -> Game:
    """The game whose records a results folder holds (its manifest names it; a folder written
    before games were registered, or without a manifest, holds 大天下's)."""
    try:
        man = json.loads((Path(out) / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return GAMES[DEFAULT]
    return get((man.get("config") or {}).get("game"), source=str(out))


__all__ = ["DEFAULT", "GAMES", "Game", "get", "of_config", "of_results"]
