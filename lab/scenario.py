"""Rules scenarios (../shared/spec/scenarios.md): load, play, check.

A scenario is an explicit position, a scripted line of play in the step grammar, and expectations
checked after the last step. This module reads the TOML, drives ``lab.engine.api.Game`` and
compares; it holds no rule of its own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from lab.engine.api import Game, IllegalAction
from lab.engine.layout import END_NAMES
from lab.errors import LabError, read_toml
from lab.rules import DEFAULT_PRESET, PRESETS, RuleSet

TOP_KEYS = {"name", "rules", "seed", "first", "steps", "overrides", "A", "B", "expect"}
ZONE_KEYS = {"deck", "hand", "walls", "castle", "castle_damaged", "camp_up", "camp_down",
             "graveyard", "logistics"}
EXPECT_TOP = {"winner", "leader", "to_move", "end_reason", "A", "B"}
EXPECT_MULTISETS = ("hand", "camp_up", "camp_down", "graveyard", "logistics")
EXPECT_COUNTS = ("hand_count", "deck_count", "walls")
EXPECT_PLAYER = set(EXPECT_MULTISETS) | set(EXPECT_COUNTS) | {"castle", "castle_damaged"}
# allowed values of the top-level expectations
EXPECT_VALUES = {"winner": ("A", "B", "draw", ""), "leader": ("A", "B", ""),
                 "to_move": ("A", "B", ""), "end_reason": END_NAMES}


@dataclass
class Scenario:
    name: str
    source: str
    rules: RuleSet
    seed: int
    first: str
    steps: list[tuple[str, bool]]
    zones: dict
    expect: dict = field(default_factory=dict)
    file: str = ""  # the scenario file it was read from

    @property
    def file_name(self) -> str:
        return Path(self.file).name


@dataclass
class Outcome:
    scenario: Scenario
    passed: bool
    message: str = ""
    game: Game | None = None


def load(path: str | Path) -> list[Scenario]:
    src = str(path)
    data = read_toml(path, "a scenario .toml file")
    tables = data["scenario"] if "scenario" in data else [data]
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise LabError("`scenario` must be an array of tables ([[scenario]])", source=src)
    others = sorted(k for k in data if k != "scenario") if "scenario" in data else []
    if others:
        raise LabError(f"unknown key(s) or table(s) {', '.join(others)} beside the [[scenario]] "
                       "tables; put every key inside a [[scenario]] table", source=src)
    return [replace(_parse(t, f"{src}" + (f" [[scenario]] #{k + 1}" if "scenario" in data
                                          else "")), file=src)
            for k, t in enumerate(tables)]


def _parse(t: dict, src: str) -> Scenario:
    unknown = set(t) - TOP_KEYS
    if unknown:
        raise LabError(f"unknown key(s) {', '.join(sorted(unknown))}; allowed: "
                       f"{', '.join(sorted(TOP_KEYS))}", source=src)
    for key in ("name", "steps"):
        if key not in t:
            raise LabError(f"missing key \"{key}\"", source=src)
    preset = t.get("rules", DEFAULT_PRESET)
    if preset not in PRESETS:
        raise LabError(f"rules = {preset!r} is not a preset; allowed values: "
                       f"{', '.join(PRESETS)} (toggles go in [overrides])", source=src)
    overrides = t.get("overrides", {})
    if not isinstance(overrides, dict):
        raise LabError(f"overrides = {overrides!r}: [overrides] is a table of rule toggles",
                       source=src)
    rules = RuleSet.from_dict({"preset": preset, **overrides}, source=src)
    seed = t.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise LabError(f"seed = {seed!r} is not allowed; allowed values: whole numbers ≥ 0",
                       source=src)
    if not isinstance(t["steps"], list):
        raise LabError(f"steps = {t['steps']!r}: steps is a list of step strings", source=src)
    first = t.get("first", "A")
    if first not in ("A", "B"):
        raise LabError(f"first = {first!r}; allowed values: \"A\", \"B\"", source=src)
    steps = []
    for k, st in enumerate(t["steps"]):
        if isinstance(st, str):
            steps.append((st, False))
        elif isinstance(st, dict) and "do" in st and set(st) <= {"do", "expect_illegal"}:
            if st.get("expect_illegal") and k != len(t["steps"]) - 1:
                raise LabError(f"steps[{k}]: expect_illegal is allowed on the last step only",
                               source=src)
            steps.append((st["do"], bool(st.get("expect_illegal", False))))
        else:
            raise LabError(f"steps[{k}]: a step is a string or "
                           "{ do = \"…\", expect_illegal = true }", source=src)
    zones = {}
    for seat in ("A", "B"):
        z = t.get(seat, {})
        unknown = set(z) - ZONE_KEYS
        if unknown:
            raise LabError(f"[{seat}]: unknown zone(s) {', '.join(sorted(unknown))}; allowed: "
                           f"{', '.join(sorted(ZONE_KEYS))}", source=src)
        zones[seat] = z
    expect = t.get("expect", {})
    if not isinstance(expect, dict):
        raise LabError(f"expect = {expect!r}: [expect] is a table", source=src)
    unknown = set(expect) - EXPECT_TOP
    if unknown:
        raise LabError(f"[expect]: unknown key(s) {', '.join(sorted(unknown))}; allowed: "
                       f"{', '.join(sorted(EXPECT_TOP))}", source=src)
    for seat in ("A", "B"):
        unknown = set(expect.get(seat, {})) - EXPECT_PLAYER
        if unknown:
            raise LabError(f"[expect.{seat}]: unknown key(s) {', '.join(sorted(unknown))}; "
                           f"allowed: {', '.join(sorted(EXPECT_PLAYER))}", source=src)
    _check_expect_types(expect, src)
    return Scenario(t["name"], src, rules, seed, first, steps, zones, expect)


def _check_expect_types(expect: dict, src: str) -> None:
    """A mistyped expectation is an error in the scenario, never a failed ruling."""
    for key, allowed in EXPECT_VALUES.items():
        if key in expect and expect[key] not in allowed:
            raise LabError(f"[expect] {key} = {expect[key]!r} is not allowed; allowed values: "
                           f"{', '.join(repr(a) for a in allowed)}", source=src)
    for seat in ("A", "B"):
        table = expect.get(seat, {})
        if not isinstance(table, dict):
            raise LabError(f"[expect] {seat} = {table!r}: [expect.{seat}] is a table",
                           source=src)
        for key, value in table.items():
            where = f"[expect.{seat}] {key} = {value!r}"
            if key in EXPECT_MULTISETS:
                ok, want = (isinstance(value, list) and all(isinstance(v, str) for v in value),
                            "a list of card names")
            elif key in EXPECT_COUNTS:
                ok, want = (isinstance(value, int) and not isinstance(value, bool) and value >= 0,
                            "a whole number ≥ 0")
            elif key == "castle":
                ok, want = isinstance(value, str), "a castle's name or \"\""
            else:
                ok, want = isinstance(value, bool), "true or false"
            if not ok:
                raise LabError(f"{where} is not allowed; allowed values: {want}", source=src)


def run(sc: Scenario, log: bool = False) -> Outcome:
    game = Game.from_position(sc.rules, sc.zones, sc.first, seed=sc.seed, log=log,
                              source=sc.source)
    for k, (text, illegal) in enumerate(sc.steps):
        if game.is_over:
            return Outcome(sc, False, f"step {k + 1} \"{text}\": the game is already over "
                                      f"({game.summary()})", game)
        try:
            game.step(text)
        except IllegalAction as e:
            if illegal:
                break
            return Outcome(sc, False, f"step {k + 1}: {e}", game)
        else:
            if illegal:
                return Outcome(sc, False, f"step {k + 1} \"{text}\" was expected to be illegal "
                                          "but was accepted", game)
    diff = check(game, sc.expect)
    return Outcome(sc, not diff, diff, game)


def observed(game: Game, key: str, seat: str | None = None):
    if seat is None:
        if key == "winner":
            return game.winner or ""
        if key == "end_reason":
            return game.end_reason
        if key == "leader":
            return game.leader
        if key == "to_move":
            return "" if game.is_over else game.to_move
    if key == "walls":
        return game.zone(seat, "wall_count")
    if key in EXPECT_MULTISETS:
        z = game.zone(seat, key)
        return Counter(z) if isinstance(z, list) else Counter(z)
    return game.zone(seat, key)


def check(game: Game, expect: dict) -> str:
    """The first difference between the game and the expectations, or ""."""
    for key in ("winner", "end_reason", "leader", "to_move"):
        if key in expect and observed(game, key) != expect[key]:
            return f"{key}: expected {expect[key]!r}, got {observed(game, key)!r}"
    for seat in ("A", "B"):
        for key, want in expect.get(seat, {}).items():
            got = observed(game, key, seat)
            if key in EXPECT_MULTISETS:
                want_c = Counter(want)
                if +got != +want_c:
                    return (f"{seat}.{key}: expected {_ms(want_c)}, got {_ms(got)}")
            elif got != want:
                return f"{seat}.{key}: expected {want!r}, got {got!r}"
    return ""


def _ms(c: Counter) -> str:
    return "[" + ", ".join(f"{k}×{v}" if v > 1 else k for k, v in sorted(c.items())) + "]"


def each_outcome(paths, log: bool = False):
    """Load and run every scenario of ``paths`` (files, or folders of *.toml files), yielding
    each ``Outcome`` as soon as it is known; a scenario the engine refuses is a failed one."""
    for path in paths:
        p = Path(path)
        files = sorted(p.glob("*.toml")) if p.is_dir() else [p]
        for f in files:
            for sc in load(f):
                try:
                    yield run(sc, log=log)
                except LabError as e:
                    yield Outcome(sc, False, str(e))


def run_paths(paths, log: bool = False) -> list[Outcome]:
    return list(each_outcome(paths, log))
