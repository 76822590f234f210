"""Rumble Nation scenarios: the TOML format of scenarios.md adapted to RN — a position, a scripted
line of play with every die given, and expectations checked after the last step.

Owns reading a scenario file (one table, or several ``[[scenario]]``), driving ``game.Game`` and
comparing; the grammar and keys are documented in docs/rumble_nation.md. It holds no rule.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

from pydantic import model_validator

from lab.errors import LabError, read_toml
from lab.games.rumble_nation.board import AREAS, area_index
from lab.games.rumble_nation.game import SEAT_NAMES, Game, IllegalAction, parse_step
from lab.games.rumble_nation.nb_core import power
from lab.games.rumble_nation.nb_layout import (
    MAXP,
    P_CHIP,
    P_DAIMYO,
    P_DSTOCK,
    P_RANK,
    P_REROLLS,
    P_SCORE,
    P_STOCK,
    P_TURNS,
    S_LARGE,
    S_MEN,
    S_REINF,
    S_SLOT,
    S_SMALL,
)
from lab.games.rumble_nation.rules import RNRules
from lab.schema.base import Table
from lab.schema.base import check as validate
from lab.schema.scenario import STEPS, Step, illegal_only_last

GAME = "rumble_nation"
TOP_KEYS = {
    "game",
    "name",
    "rules",
    "seed",
    "first",
    "steps",
    "overrides",
    "tokens",
    "expect",
    *SEAT_NAMES,
}
EXPECT_TOP = {"winner", "phase", "to_move", "dice", "set_aside", "ranking", *SEAT_NAMES}
EXPECT_SEAT = {
    "score",
    "rank",
    "chip",
    "stock",
    "daimyo",
    "daimyo_in_stock",
    "soldiers",
    "reinforcements",
    "power",
    "large",
    "small",
    "rerolls",
    "turns",
}


class _Steps(Table):
    steps: list[Union[str, Step]] = STEPS

    @model_validator(mode="after")
    def _illegal_only_last(self):
        return illegal_only_last(self)


@dataclass
class Scenario:
    name: str
    source: str
    rules: RNRules
    seed: int
    first: str
    steps: list[tuple[str, bool]]
    tokens: dict
    seats: dict
    expect: dict = field(default_factory=dict)

    @property
    def file_name(self) -> str:
        return Path(self.source.split(" [[scenario]]")[0]).name


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
    many = "scenario" in data
    return [
        _parse(t, src + (f" [[scenario]] #{k + 1}" if many else ""), Path(path).parent)
        for k, t in enumerate(tables)
    ]


def _parse(t: dict, src: str, folder: Path) -> Scenario:
    unknown = set(t) - TOP_KEYS
    if unknown:
        raise LabError(
            f"unknown key(s) {', '.join(sorted(unknown))}; allowed: {', '.join(sorted(TOP_KEYS))}",
            source=src,
        )
    if t.get("game", GAME) != GAME:
        raise LabError(f"game = {t['game']!r}: this runner plays game = \"{GAME}\"", source=src)
    for key in ("name", "steps"):
        if key not in t:
            raise LabError(f"missing key \"{key}\"", source=src)
    rules = RNRules.from_dict(
        {"preset": t.get("rules", "base_2p"), **t.get("overrides", {})}, source=src, base_dir=folder
    )
    first = t.get("first", "P1")
    if first not in SEAT_NAMES[: rules.players]:
        raise LabError(
            f"first = {first!r}; allowed: {', '.join(SEAT_NAMES[: rules.players])}", source=src
        )
    # the steps list is 大天下's scenario format (lab.schema.scenario): one schema for both
    steps = [
        (st, False) if isinstance(st, str) else (st.do, st.expect_illegal)
        for st in validate(_Steps, {"steps": t["steps"]}, src).steps
    ]
    for k, (text, _) in enumerate(steps):
        parse_step(text, source=f"{src} steps[{k}]")
    expect = t.get("expect", {})
    unknown = set(expect) - EXPECT_TOP
    if unknown:
        raise LabError(
            f"[expect]: unknown key(s) {', '.join(sorted(unknown))}; allowed: "
            f"{', '.join(sorted(EXPECT_TOP))}",
            source=src,
        )
    for seat in SEAT_NAMES:
        bad = set(expect.get(seat, {})) - EXPECT_SEAT
        if bad:
            raise LabError(
                f"[expect.{seat}]: unknown key(s) {', '.join(sorted(bad))}; "
                f"allowed: {', '.join(sorted(EXPECT_SEAT))}",
                source=src,
            )
    seats = {k: t[k] for k in SEAT_NAMES if k in t}
    return Scenario(
        t["name"],
        src,
        rules,
        int(t.get("seed", 0)),
        first,
        steps,
        t.get("tokens", {}),
        seats,
        expect,
    )


def set_up(sc: Scenario) -> Game:
    """The scenario's position; a position or a step the rules cannot hold is a ``LabError``
    (the file is malformed), not a failed scenario."""
    game = Game.from_position(
        sc.rules, sc.tokens, sc.seats, sc.first, seed=sc.seed, source=sc.source
    )
    for text, _ in sc.steps:
        parse_step(text)
    return game


def run(sc: Scenario) -> Outcome:
    return play(sc, set_up(sc))


def play(sc: Scenario, game: Game) -> Outcome:
    """Play ``sc``'s steps from its set-up position and check its expectations."""
    for k, (text, illegal) in enumerate(sc.steps):
        where = f"step {k + 1} \"{text}\""
        if game.is_over:
            return Outcome(sc, False, f"{where}: the game is already over ({game.summary()})", game)
        if game.dice is None and parse_step(text).verb != "roll":
            return Outcome(
                sc,
                False,
                f"{where}: the dice are due; a scenario gives every roll "
                f"(`{game.to_move} roll D D D`)",
                game,
            )
        try:
            game.step(text)
        except IllegalAction as e:
            if illegal:
                break
            return Outcome(sc, False, f"{where}: {e}", game)
        else:
            if illegal:
                return Outcome(
                    sc, False, f"{where} was expected to be illegal but was accepted", game
                )
    diff = check(game, sc.expect)
    return Outcome(sc, not diff, diff, game)


def observed(game: Game, key: str, seat: str | None = None):
    """The value an expectation key names, in the scenario's own terms."""
    s = game.s
    if seat is None:
        if key == "winner":
            return game.winner or ""
        if key == "phase":
            return game.phase
        if key == "to_move":
            return game.to_move or ""
        if key == "dice":
            return list(game.dice or [])
        if key == "set_aside":
            return [t + 2 for t in range(len(AREAS)) if game.is_over and s[S_LARGE + t] < 0]
        if key == "ranking":
            if not game.is_over:
                return []
            return sorted(game.seats, key=lambda nm: game.seat_field(SEAT_NAMES.index(nm), P_RANK))
    p = SEAT_NAMES.index(seat)
    fields = {
        "score": P_SCORE,
        "rank": P_RANK,
        "chip": P_CHIP,
        "stock": P_STOCK,
        "rerolls": P_REROLLS,
        "turns": P_TURNS,
    }
    if key in fields:
        return game.seat_field(p, fields[key])
    if key == "daimyo_in_stock":
        return bool(game.seat_field(p, P_DSTOCK))
    if key == "daimyo":
        t = game.seat_field(p, P_DAIMYO)
        return "" if t < 0 else game.area_of(t + 2)
    if key == "large":
        return [t + 2 for t in range(len(AREAS)) if s[S_LARGE + t] == p]
    if key == "small":
        return [t + 2 for t in range(len(AREAS)) if s[S_SMALL + t] == p]
    raise KeyError(key)


def _per_area(game: Game, key: str, p: int, area: str, source: str) -> int:
    t = int(game.s[S_SLOT + area_index(area, source, f"area in [expect.P{p + 1}] {key}")])
    if key == "soldiers":
        return int(game.s[S_MEN + t * MAXP + p])
    if key == "reinforcements":
        return int(game.s[S_REINF + t * MAXP + p])
    return int(power(game.s, t, p))


def check(game: Game, expect: dict, source: str = "") -> str:
    """The first difference between the game and the expectations, or ""."""
    for key in ("winner", "phase", "to_move", "dice", "set_aside", "ranking"):
        if key in expect:
            got, want = observed(game, key), expect[key]
            if key == "set_aside":
                got, want = sorted(got), sorted(want)
            if got != want:
                return f"{key}: expected {want!r}, got {got!r}"
    for seat in SEAT_NAMES:
        for key, want in expect.get(seat, {}).items():
            p = SEAT_NAMES.index(seat)
            if key in ("soldiers", "reinforcements", "power"):
                for area, n in want.items():
                    got = _per_area(game, key, p, area, source)
                    if got != n:
                        return f"{seat}.{key} {area}: expected {n}, got {got}"
                continue
            got = observed(game, key, seat)
            if key in ("large", "small"):
                if Counter(got) != Counter(want):
                    return f"{seat}.{key}: expected {sorted(want)}, got {sorted(got)}"
            elif got != want:
                return f"{seat}.{key}: expected {want!r}, got {got!r}"
    return ""


def prepare(path: str | Path) -> list:
    """Every scenario in one file (or every .toml file in a folder) read and set up, as
    callables that play one and return its ``Outcome``; a malformed file raises its one-line
    ``LabError`` here, before any scenario plays."""
    p = Path(path)
    files = sorted(p.glob("*.toml")) if p.is_dir() else [p]
    ready = []
    for f in files:
        for sc in load(f):
            position = set_up(sc)
            ready.append(lambda sc=sc, position=position: play(sc, position))
    return ready


def run_scenario(path: str | Path) -> list[Outcome]:
    """Every scenario in one file (or every .toml file in a folder), run and checked; a
    malformed file is a ``LabError`` (see ``prepare``)."""
    return [start() for start in prepare(path)]
