"""Rule sets: the presets and toggles of rules.md R14, validated, and packed for the engine.

Owns: the ``RuleSet`` value (frozen, hashable, with a stable id for result files), the three
presets, loading a rule set from TOML on top of a preset, the cross-checks between toggles, and the
integer packing the compiled engine reads (the ``R_*`` offsets). It knows no card and plays nothing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from dataclasses import field as dataclass_field
from pathlib import Path

import numpy as np

from lab.errors import LabError, read_toml
from lab.schema import FLAG  # a toggle that is on or off

DEFAULT_PRESET = "second_edition"  # the current rulebook: what every input means when it names none


def toggle(default, allowed, slot: str, description: str):
    """One rules toggle, declared once: its default (the second edition's), what it allows — a
    (lowest, highest) pair of whole numbers, ``FLAG``, or {value: engine code} for a choice —
    the name of its slot in the packed array the engine reads, and what it means (rules.md R14).
    Every other list of the toggles (allowed values, descriptions, engine offsets, the rules file
    schema) is derived from these declarations."""
    return dataclass_field(
        default=default, metadata={"allowed": allowed, "slot": slot, "description": description}
    )


@dataclass(frozen=True)
class RuleSet:
    walls: int = toggle(
        7, (1, 12), "R_WALLS", "wall cards dealt at set-up (R3); 7, 6 (関ヶ原), 10 (legacy)"
    )
    logistics: bool = toggle(
        False,
        FLAG,
        "R_LOGISTICS",
        "legacy 兵站 rule: 3 face-up cards, set strength ≤ logistics count (R3, R5)",
    )
    hand_cap: int = toggle(
        0,
        (0, 40),
        "R_HAND_CAP",
        "the leader-turn draw only while the hand is below this; 0 = no cap (R4)",
    )
    initial_hand: int = toggle(5, (0, 15), "R_INITIAL_HAND", "opening hand size (R3)")
    mulligan: bool = toggle(
        False, FLAG, "R_MULLIGAN", "a hand with no card of strength ≤3 may be redrawn once (R3)"
    )
    damage: str = toggle(
        "plays",
        {"plays": 0, "last_set_size": 1},
        "R_DAMAGE_LAST_SET",
        "base wall damage: sets the winner played, or cards in the final set (R6)",
    )
    leader_pass: str = toggle(
        "always",
        {"always": 0, "only_if_no_play": 1},
        "R_PASS_ONLY_IF_NO_PLAY",
        "見送り always allowed, or only when no set can be led (R4)",
    )
    leader_pass_cost: str = toggle(
        "wall_to_hand",
        {"wall_to_hand": 1, "none": 0},
        "R_PASS_COSTS_WALL",
        "見送り takes the top wall into hand, or costs nothing (R4)",
    )
    gun: str = toggle(
        "kill",
        {"kill": 0, "retreat": 1},
        "R_GUN_RETREAT",
        "鉄砲 fire kills the opponent's field units, or sends all to camp (R10)",
    )
    odawara: str = toggle(
        "draw",
        {"draw": 0, "fortify": 1},
        "R_ODAWARA_FORTIFY",  # context.py
        "小田原城: draw per broken wall, or the legacy fortify action (R11)",
    )
    broken_walls: str = toggle(
        "to_hand",
        {"to_hand": 0, "to_graveyard": 1},
        "R_BROKEN_TO_GRAVE",
        "broken walls go to the defender's hand, or to the graveyard (R6)",
    )
    max_turns: int = toggle(
        500,
        (1, 100_000),
        "R_MAX_TURNS",
        "leader turns before the game is judged as turn_limit (R13)",
    )
    first_player: str = toggle(
        "random",
        {"random": -1, "A": 0, "B": 1},
        "R_FIRST",
        "who takes the first leader turn: random by seed, A or B (R3)",
    )

    def __post_init__(self):
        _check(self, asdict(self), None)

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
        return _build(asdict(self), overrides, source)

    @classmethod
    def from_toml(cls, path: str | Path, preset: str | None = None) -> "RuleSet":
        """A rules file: optional ``preset = "…"`` and toggles, at top level or under [rules]."""
        from lab.schema.rules import rules_file

        src = str(path)
        data = rules_file(read_toml(path), src)
        return cls.from_dict(data, source=src, preset=preset)

    @classmethod
    def from_dict(
        cls, data: dict, source: str | None = None, preset: str | None = None
    ) -> "RuleSet":
        """Toggles (and an optional ``preset``) on top of ``preset`` or the default preset."""
        from lab.schema.base import check
        from lab.schema.rules import rules_table

        values = check(rules_table(cls, tuple(PRESETS)), data, source).model_dump(exclude_none=True)
        base = PRESETS[values.pop("preset", None) or preset or DEFAULT_PRESET]
        return _build(asdict(base), values, source) if values else base

    # ------------------------------------------------------------------ identity
    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def id(self) -> str:
        """A stable, readable id: the nearest preset plus the toggles that differ from it."""
        best = None
        for name, p in PRESETS.items():
            diff = [
                (f.name, getattr(self, f.name))
                for f in fields(self)
                if getattr(self, f.name) != getattr(p, f.name)
            ]
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
        for slot, f in enumerate(fields(self)):
            value, allowed = getattr(self, f.name), f.metadata["allowed"]
            r[slot] = allowed[value] if isinstance(allowed, dict) else int(value)
        return r


# What the declarations say, as the rest of the lab reads it.
_DECLARED = {f.name: f.metadata for f in fields(RuleSet)}
CHOICES: dict[str, tuple[str, ...]] = {
    k: tuple(m["allowed"]) for k, m in _DECLARED.items() if isinstance(m["allowed"], dict)
}
RANGES: dict[str, tuple[int, int]] = {
    k: m["allowed"] for k, m in _DECLARED.items() if isinstance(m["allowed"], tuple)
}
BOOLS = tuple(k for k, m in _DECLARED.items() if m["allowed"] == FLAG)
DESCRIPTIONS = {k: m["description"] for k, m in _DECLARED.items()}
# Offsets into the packed rules array (read by lab.games.daitenka.engine), in declaration order, written out
# so that editors, linters and numba see plain ints; the check below holds them to the order.
R_WALLS = 0
R_LOGISTICS = 1
R_HAND_CAP = 2
R_INITIAL_HAND = 3
R_MULLIGAN = 4
R_DAMAGE_LAST_SET = 5
R_PASS_ONLY_IF_NO_PLAY = 6
R_PASS_COSTS_WALL = 7
R_GUN_RETREAT = 8
R_ODAWARA_FORTIFY = 9
R_BROKEN_TO_GRAVE = 10
R_MAX_TURNS = 11
R_FIRST = 12
N_RULES = len(_DECLARED)
for _slot, _m in enumerate(_DECLARED.values()):
    if globals().get(_m["slot"]) != _slot:
        raise AssertionError(
            f"lab/games/daitenka/rules.py: {_m['slot']} must be {_slot}, the toggle's place "
            "among the RuleSet fields; write it out so"
        )
del _slot, _m
# 総構え under odawara = "fortify" pays two logistics cards for one wall (rules.md R4); the
# context builder writes it into the castle's row, the only place the toggle is applied
FORTIFY_COST = 2


def _show(v) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    return str(v)


def _build(values: dict, changes: dict, source) -> RuleSet:
    rs = object.__new__(RuleSet)
    _check(rs, values | changes, source)
    return rs


def _check(rs: RuleSet, values: dict, source) -> None:
    """Store the validated toggles (a "10" from a prompt is 10: RuleSet(walls="10") ==
    RuleSet(walls=10)) and check the toggles against each other."""
    from lab.schema.base import check
    from lab.schema.rules import toggles_table

    for k, v in check(toggles_table(RuleSet), values, source).model_dump().items():
        object.__setattr__(rs, k, v)
    if rs.odawara == "fortify" and not rs.logistics:
        raise LabError(
            "odawara = \"fortify\" needs logistics = true (the 総構え action pays "
            "兵站 cards); set logistics = true or odawara = \"draw\"",
            source=source,
        )


PRESETS: dict[str, RuleSet] = {
    "second_edition": RuleSet(),
    "sekigahara_trial": RuleSet(walls=6),
    "legacy_testlab": RuleSet(
        walls=10,
        logistics=True,
        hand_cap=7,
        mulligan=True,
        damage="last_set_size",
        leader_pass="always",
        leader_pass_cost="none",
        gun="retreat",
        odawara="fortify",
    ),
}
