"""Rule sets: the presets and toggles of rules.md R14, validated, and packed for the engine.

Owns: the ``RuleSet`` value (frozen, hashable, with a stable id for result files), the three
presets, loading a rule set from TOML on top of a preset, the cross-checks between toggles, and the
integer packing the compiled engine reads (the ``R_*`` offsets). It knows no card and plays nothing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

from lab.errors import LabError, read_toml

# Allowed values of the toggles that are a choice between readings (rules.md R14).
CHOICES: dict[str, tuple[str, ...]] = {
    "damage": ("plays", "last_set_size"),
    "leader_pass": ("always", "only_if_no_play"),
    "leader_pass_cost": ("wall_to_hand", "none"),
    "gun": ("kill", "retreat"),
    "odawara": ("draw", "fortify"),
    "broken_walls": ("to_hand", "to_graveyard"),
    "first_player": ("random", "A", "B"),
}
# Whole-number toggles: (lowest, highest) allowed.
RANGES: dict[str, tuple[int, int]] = {
    "walls": (1, 12),
    "hand_cap": (0, 40),
    "initial_hand": (0, 15),
    "max_turns": (1, 100_000),
}
BOOLS = ("logistics", "mulligan")
DEFAULT_PRESET = "second_edition"  # the current rulebook: what every input means when it names none

DESCRIPTIONS = {
    "walls": "wall cards dealt at set-up (R3); 7, 6 (関ヶ原), 10 (legacy)",
    "logistics": "legacy 兵站 rule: 3 face-up cards, set strength ≤ logistics count (R3, R5)",
    "hand_cap": "the leader-turn draw only while the hand is below this; 0 = no cap (R4)",
    "initial_hand": "opening hand size (R3)",
    "mulligan": "a hand with no card of strength ≤3 may be redrawn once (R3)",
    "damage": "base wall damage: sets the winner played, or cards in the final set (R6)",
    "leader_pass": "見送り always allowed, or only when no set can be led (R4)",
    "leader_pass_cost": "見送り takes the top wall into hand, or costs nothing (R4)",
    "gun": "鉄砲 fire kills the opponent's field units, or sends all to camp (R10)",
    "odawara": "小田原城: draw per broken wall, or the legacy fortify action (R11)",
    "broken_walls": "broken walls go to the defender's hand, or to the graveyard (R6)",
    "max_turns": "leader turns before the game is judged as turn_limit (R13)",
    "first_player": "who takes the first leader turn: random by seed, A or B (R3)",
}


@dataclass(frozen=True)
class RuleSet:
    walls: int = 7
    logistics: bool = False
    hand_cap: int = 0
    initial_hand: int = 5
    mulligan: bool = False
    damage: str = "plays"
    leader_pass: str = "always"
    leader_pass_cost: str = "wall_to_hand"
    gun: str = "kill"
    odawara: str = "draw"
    broken_walls: str = "to_hand"
    max_turns: int = 500
    first_player: str = "random"

    def __post_init__(self):
        _check(self, None)

    # ------------------------------------------------------------------ construction
    @classmethod
    def preset(cls, name: str) -> "RuleSet":
        if name not in PRESETS:
            raise LabError(f"unknown rules preset \"{name}\"; presets: {', '.join(PRESETS)}")
        return PRESETS[name]

    def with_overrides(self, overrides: dict, source: str | None = None) -> "RuleSet":
        """This rule set with some toggles changed; values may be strings (from a prompt)."""
        if not overrides:
            return self
        names = [f.name for f in fields(self)]
        changes = {}
        for key, value in overrides.items():
            if key not in names:
                raise LabError(f"unknown rules key \"{key}\"; valid keys: {', '.join(names)}",
                               source=source)
            changes[key] = _coerce(key, value, source)
        return _build(asdict(self) | changes, source)

    @classmethod
    def from_toml(cls, path: str | Path, preset: str | None = None) -> "RuleSet":
        """A rules file: optional ``preset = "…"`` and toggles, at top level or under [rules]."""
        src = str(path)
        data = read_toml(path)
        if "rules" in data and isinstance(data["rules"], dict):
            others = sorted(k for k in data if k != "rules")
            if others:
                raise LabError(f"unknown key(s) or table(s) {', '.join(others)} beside [rules]; "
                               "a rules file holds toggles (and preset = \"…\") at top level "
                               "or under [rules], nothing else", source=src)
            data = data["rules"]
        return cls.from_dict(data, source=src, preset=preset)

    @classmethod
    def from_dict(cls, data: dict, source: str | None = None,
                  preset: str | None = None) -> "RuleSet":
        data = dict(data)
        base_name = data.pop("preset", None) or preset or DEFAULT_PRESET
        if base_name not in PRESETS:
            raise LabError(f"preset = \"{base_name}\" is not one of: {', '.join(PRESETS)}",
                           source=source)
        return PRESETS[base_name].with_overrides(data, source)

    # ------------------------------------------------------------------ identity
    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def id(self) -> str:
        """A stable, readable id: the nearest preset plus the toggles that differ from it."""
        best = None
        for name, p in PRESETS.items():
            diff = [(f.name, getattr(self, f.name)) for f in fields(self)
                    if getattr(self, f.name) != getattr(p, f.name)]
            if best is None or len(diff) < len(best[1]):
                best = (name, diff)
        name, diff = best
        if not diff:
            return name
        return name + "+" + "+".join(f"{k}={_show(v)}" for k, v in diff)

    def __str__(self) -> str:
        return self.id

    # ------------------------------------------------------------------ engine packing
    def pack(self) -> np.ndarray:
        r = np.zeros(N_RULES, dtype=np.int64)
        r[R_WALLS] = self.walls
        r[R_LOGISTICS] = int(self.logistics)
        r[R_HAND_CAP] = self.hand_cap
        r[R_INITIAL_HAND] = self.initial_hand
        r[R_MULLIGAN] = int(self.mulligan)
        r[R_DAMAGE_LAST_SET] = int(self.damage == "last_set_size")
        r[R_PASS_ONLY_IF_NO_PLAY] = int(self.leader_pass == "only_if_no_play")
        r[R_PASS_COSTS_WALL] = int(self.leader_pass_cost == "wall_to_hand")
        r[R_GUN_RETREAT] = int(self.gun == "retreat")
        r[R_ODAWARA_FORTIFY] = int(self.odawara == "fortify")
        r[R_BROKEN_TO_GRAVE] = int(self.broken_walls == "to_graveyard")
        r[R_MAX_TURNS] = self.max_turns
        r[R_FIRST] = {"random": -1, "A": 0, "B": 1}[self.first_player]
        return r


# Offsets into the packed rules array (read by lab.engine).
(R_WALLS, R_LOGISTICS, R_HAND_CAP, R_INITIAL_HAND, R_MULLIGAN, R_DAMAGE_LAST_SET,
 R_PASS_ONLY_IF_NO_PLAY, R_PASS_COSTS_WALL, R_GUN_RETREAT, R_ODAWARA_FORTIFY, R_BROKEN_TO_GRAVE,
 R_MAX_TURNS, R_FIRST, N_RULES) = range(14)


def _show(v) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    return str(v)


_TRUE = {"true", "on", "yes", "1"}
_FALSE = {"false", "off", "no", "0"}


def _coerce(key: str, value, source):
    if key in BOOLS:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
            return value.lower() in _TRUE
        raise LabError(f"{key} = {value!r} is not allowed; allowed values: true, false "
                       "(or on, off)", source=source)
    if key in RANGES:
        lo, hi = RANGES[key]
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise LabError(f"{key} = {value!r} is not allowed; allowed values: whole numbers "
                           f"{lo}–{hi}", source=source)
        return value
    allowed = CHOICES[key]
    if value not in allowed:
        raise LabError(f"{key} = {value!r} is not allowed; allowed values: "
                       f"{', '.join(allowed)}", source=source)
    return value


def _build(values: dict, source) -> RuleSet:
    rs = object.__new__(RuleSet)
    for k, v in values.items():
        object.__setattr__(rs, k, v)
    _check(rs, source)
    return rs


def _check(rs: RuleSet, source) -> None:
    for f in fields(rs):  # store the coerced value: RuleSet(walls="10") == RuleSet(walls=10)
        object.__setattr__(rs, f.name, _coerce(f.name, getattr(rs, f.name), source))
    if rs.odawara == "fortify" and not rs.logistics:
        raise LabError("odawara = \"fortify\" needs logistics = true (the 総構え action pays "
                       "兵站 cards); set logistics = true or odawara = \"draw\"", source=source)


PRESETS: dict[str, RuleSet] = {
    "second_edition": RuleSet(),
    "sekigahara_trial": RuleSet(walls=6),
    "legacy_testlab": RuleSet(walls=10, logistics=True, hand_cap=7, mulligan=True,
                              damage="last_set_size", leader_pass="always",
                              leader_pass_cost="none", gun="retreat", odawara="fortify"),
}
