"""Rumble Nation rule sets: the toggles and presets of rumble-nation.md RN7, validated, with a
stable readable id, and packed into the context array the kernels read.

Owns: the ``RNRules`` value (frozen, hashable), the four presets, loading a rule set from a dict or
TOML on top of a preset, the one-line errors for bad values, and ``context()`` (rules + map →
``int64[C_SIZE]``). It plays nothing; the map file itself is read by ``board``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from lab.errors import LabError, read_toml
from lab.games.rumble_nation import nb_layout as L
from lab.games.rumble_nation.board import Board, load_map

DESCRIPTIONS = {
    "players": "seats in play, 2–4 (RN1: sword chips 1…players; small tokens need 3–4)",
    "reroll": "once per turn a player may reroll all three dice (RN3.1)",
    "soldier_counts": "soldiers placed for a single die of 1–2, 3–4, 5–6 (RN3.3), e.g. [1, 2, 3]",
    "reinforcements": "reinforcement meeples the winner puts in each adjacent area (RN4.3)",
    "second_place": "the runner-up of an area takes a small token worth half (RN4.2)",
    "daimyo": "advanced rule: one daimyo meeple per seat, 2 power in war (RN6)",
    "soldiers": "soldiers per seat at set-up (RN1; 16 with the advanced rule)",
    "map": "the map file: \"default\" (the packaged archipelago) or a path to a map .toml (RN1)",
}
RANGES = {"players": (2, L.MAXP), "reinforcements": (0, 9), "soldiers": (1, 60)}
BOOLS = ("reroll", "second_place", "daimyo")


@dataclass(frozen=True)
class RNRules:
    players: int = 2
    reroll: bool = True
    soldier_counts: tuple[int, int, int] = (1, 2, 3)
    reinforcements: int = 1
    second_place: bool = False
    daimyo: bool = False
    soldiers: int = 18
    map: str = "default"

    def __post_init__(self):
        for f in fields(self):  # store coerced values: RNRules(players="3") == RNRules(players=3)
            object.__setattr__(self, f.name, _coerce(f.name, getattr(self, f.name), None))
        self.board()  # a bad map file stops here, with its own one-line error

    # ------------------------------------------------------------------ construction
    @classmethod
    def preset(cls, name: str) -> "RNRules":
        if name not in PRESETS:
            raise LabError(
                f"unknown Rumble Nation preset \"{name}\"; presets: {', '.join(PRESETS)}"
            )
        return PRESETS[name]

    def with_overrides(self, overrides: dict, source: str | None = None) -> "RNRules":
        """This rule set with some toggles changed; values may be strings (from a prompt)."""
        names = [f.name for f in fields(self)]
        changes = {}
        for key, value in (overrides or {}).items():
            if key not in names:
                raise LabError(
                    f"unknown Rumble Nation rules key \"{key}\"; valid keys: {', '.join(names)}",
                    source=source,
                )
            changes[key] = _coerce(key, value, source)
        return replace(self, **changes) if changes else self

    @classmethod
    def from_dict(
        cls,
        data: dict,
        source: str | None = None,
        preset: str | None = None,
        base_dir: str | Path | None = None,
    ) -> "RNRules":
        """Toggles on top of ``preset = "…"`` (or the given preset); with neither, the base
        preset of the ``players`` named (base_3p for players = 3), else base_2p. A relative
        ``map`` path is taken from ``base_dir`` (the folder of the file that names it)."""
        data = dict(data)
        name = data.pop("preset", None) or preset
        if name is None:
            name = f"base_{data['players']}p" if data.get("players") in (2, 3, 4) else DEFAULT
        if name not in PRESETS:
            raise LabError(
                f"preset = \"{name}\" is not one of: {', '.join(PRESETS)}", source=source
            )
        if base_dir is not None and isinstance(data.get("map"), str) and data["map"] != "default":
            data["map"] = str((Path(base_dir) / data["map"]).resolve())
        return PRESETS[name].with_overrides(data, source)

    @classmethod
    def from_toml(cls, path: str | Path, preset: str | None = None) -> "RNRules":
        """A rules file: optional ``preset`` and toggles, at top level or under [rules]."""
        data = read_toml(path)
        if isinstance(data.get("rules"), dict):
            data = data["rules"]
        data.pop("game", None)
        return cls.from_dict(data, source=str(path), preset=preset, base_dir=Path(path).parent)

    # ------------------------------------------------------------------ identity
    def as_dict(self) -> dict:
        d = asdict(self)
        d["soldier_counts"] = list(self.soldier_counts)
        return d

    @property
    def id(self) -> str:
        """A stable, readable id: the nearest preset plus the toggles that differ from it."""
        best = None
        for name, p in PRESETS.items():
            diff = [f.name for f in fields(self) if getattr(self, f.name) != getattr(p, f.name)]
            if best is None or len(diff) < len(best[1]):
                best = (name, diff)
        name, diff = best
        return "+".join([name] + [f"{k}={self.show(k)}" for k in diff])

    def show(self, key: str) -> str:
        """A toggle's value as the id and help text write it."""
        v = getattr(self, key)
        if isinstance(v, bool):
            return "on" if v else "off"
        if key == "soldier_counts":
            return "-".join(map(str, v))
        if key == "map":
            return self.board().name
        return str(v)

    def __str__(self) -> str:
        return self.id

    # ------------------------------------------------------------------ engine packing
    def board(self) -> Board:
        return load_map(self.map)

    def context(self) -> np.ndarray:
        c = np.zeros(L.C_SIZE, np.int64)
        c[L.C_PLAYERS] = self.players
        c[L.C_REROLL] = int(self.reroll)
        c[L.C_COUNT : L.C_COUNT + 3] = self.soldier_counts
        c[L.C_REINF] = self.reinforcements
        c[L.C_SECOND] = int(self.second_place)
        c[L.C_DAIMYO] = int(self.daimyo)
        c[L.C_SOLDIERS] = self.soldiers
        c[L.C_AREA_ADJ : L.C_AREA_ADJ + L.NA] = self.board().masks()
        return c


@lru_cache(maxsize=1)
def _toggles_table():
    """The on/off and whole-number toggles as a schema table built the way 大天下's are
    (``lab.schema.rules``): one source for the words a prompt or file may use and for the
    one-line error that refuses a value."""
    from typing import Optional

    from pydantic import create_model

    from lab.schema import FLAG
    from lab.schema.base import field
    from lab.schema.rules import Toggles, _toggle

    spec = {}
    for key in (*BOOLS, *RANGES):
        tp, words = _toggle(FLAG if key in BOOLS else RANGES[key])
        spec[key] = (Optional[tp], field(None, allowed=words))
    return create_model("RNToggles", __base__=Toggles, **spec)


def _coerce(key: str, value, source):
    if key in BOOLS or key in RANGES:
        from lab.schema.base import check

        return getattr(check(_toggles_table(), {key: value}, source), key)
    if key == "soldier_counts":
        if isinstance(value, str):
            value = value.replace(",", "-").split("-")
            value = [int(v) if v.strip().isdigit() else v for v in value]
        if (
            not isinstance(value, (list, tuple))
            or len(value) != 3
            or not all(
                isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 9 for v in value
            )
        ):
            raise LabError(
                f"soldier_counts = {value!r} is not allowed; give three whole "
                "numbers 1–9 for a single die of 1–2, 3–4, 5–6, e.g. [1, 2, 3]",
                source=source,
            )
        return tuple(value)
    if key == "map":
        if not isinstance(value, (str, Path)) or not str(value):
            raise LabError(
                f"map = {value!r} is not allowed; give \"default\" or the path of a map .toml file",
                source=source,
            )
        return str(value)
    raise AssertionError(key)


DEFAULT = "base_2p"
PRESETS: dict[str, RNRules] = {
    "base_2p": RNRules(),
    "base_3p": RNRules(players=3, reinforcements=2, second_place=True),
    "base_4p": RNRules(players=4, reinforcements=2, second_place=True),
    "advanced_4p": RNRules(
        players=4, reinforcements=2, second_place=True, daimyo=True, soldiers=16
    ),
}
