"""Rules scenarios (../shared/spec/scenarios.md): load, play, check.

A scenario is an explicit position, a scripted line of play in the step grammar, and expectations
checked after the last step. This module reads the TOML, drives ``lab.engine.api.Game`` and
compares; it holds no rule of its own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from lab.engine.api import Game, IllegalAction
from lab.errors import LabError, read_toml
from lab.rules import RuleSet

TOP_KEYS = {"name", "rules", "seed", "first", "steps", "overrides", "A", "B", "expect"}
ZONE_KEYS = {"deck", "hand", "walls", "castle", "castle_damaged", "camp_up", "camp_down",
             "graveyard", "logistics"}
EXPECT_TOP = {"winner", "leader", "to_move", "end_reason", "A", "B"}
EXPECT_MULTISETS = ("hand", "camp_up", "camp_down", "graveyard", "logistics")
EXPECT_PLAYER = set(EXPECT_MULTISETS) | {"hand_count", "deck_count", "walls", "castle",
                                         "castle_damaged"}


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
    if not isinstance(tables, list):
        raise LabError("`scenario` must be an array of tables ([[scenario]])", source=src)
    return [_parse(t, f"{src}" + (f" [[scenario]] #{k + 1}" if "scenario" in data else ""))
            for k, t in enumerate(tables)]


def _parse(t: dict, src: str) -> Scenario:
    unknown = set(t) - TOP_KEYS
    if unknown:
        raise LabError(f"unknown key(s) {', '.join(sorted(unknown))}; allowed: "
                       f"{', '.join(sorted(TOP_KEYS))}", source=src)
    for key in ("name", "steps"):
        if key not in t:
            raise LabError(f"missing key \"{key}\"", source=src)
    rules = RuleSet.from_dict({"preset": t.get("rules", "second_edition"),
                               **t.get("overrides", {})}, source=src)
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
    unknown = set(expect) - EXPECT_TOP
    if unknown:
        raise LabError(f"[expect]: unknown key(s) {', '.join(sorted(unknown))}; allowed: "
                       f"{', '.join(sorted(EXPECT_TOP))}", source=src)
    for seat in ("A", "B"):
        unknown = set(expect.get(seat, {})) - EXPECT_PLAYER
        if unknown:
            raise LabError(f"[expect.{seat}]: unknown key(s) {', '.join(sorted(unknown))}; "
                           f"allowed: {', '.join(sorted(EXPECT_PLAYER))}", source=src)
    return Scenario(t["name"], src, rules, int(t.get("seed", 0)), first, steps, zones, expect)


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


def run_paths(paths) -> list[Outcome]:
    out = []
    for path in paths:
        p = Path(path)
        files = sorted(p.glob("*.toml")) if p.is_dir() else [p]
        for f in files:
            for sc in load(f):
                try:
                    out.append(run(sc))
                except LabError as e:
                    out.append(Outcome(sc, False, str(e)))
    return out
