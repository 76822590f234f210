"""Rules scenarios (../shared/spec/scenarios.md): load, play, check.

A scenario is an explicit position, a scripted line of play in the step grammar, and expectations
checked after the last step. This module reads the TOML, drives ``lab.games.daitenka.engine.api.Game`` and
compares; it holds no rule of its own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from lab.games.daitenka.cards.pool import CardPool
from lab.games.daitenka.engine.api import Game, IllegalAction
from lab.games.daitenka.engine.text import StepSyntaxError, parse_step
from lab.errors import LabError, read_toml
from lab.games.daitenka.rules import RuleSet
from lab.schema.base import check as validate
from lab.games.daitenka.scenario_file import COUNTS, MULTISETS, ScenarioTable
from lab.schema.scenario import ScenarioFile

EXPECT_MULTISETS = MULTISETS
EXPECT_COUNTS = COUNTS


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
    if "scenario" not in data:
        return [replace(_parse(data, src), file=src)]
    tables = validate(ScenarioFile, data, src).scenario
    return [
        replace(_parse(t, f"{src} [[scenario]] #{k + 1}"), file=src) for k, t in enumerate(tables)
    ]


def _parse(t: dict, src: str) -> Scenario:
    """One scenario table, checked by the schema (scenario_file); zones and expectations
    are kept as written (the engine and ``check`` read only the keys present)."""
    sc = validate(ScenarioTable, t, src)
    rules = RuleSet.from_dict(
        {"preset": sc.rules, **sc.overrides}, source=f"{src} [overrides]" if sc.overrides else src
    )
    steps = [(st, False) if isinstance(st, str) else (st.do, st.expect_illegal) for st in sc.steps]
    zones = {seat: t.get(seat, {}) for seat in ("A", "B")}
    return Scenario(sc.name, src, rules, sc.seed, sc.first, steps, zones, t.get("expect", {}))


def set_up(sc: Scenario, log: bool = False, pool: CardPool | None = None) -> Game:
    """The scenario's position, ready for its steps. A position the rules cannot hold (an
    unknown card, too many cards in a zone, …) or a step that is not written in the step
    grammar makes the file malformed: a ``LabError`` naming it, not a failed scenario."""
    game = Game.from_position(
        sc.rules, sc.zones, sc.first, seed=sc.seed, log=log, source=sc.source, pool=pool
    )
    for k, (text, _) in enumerate(sc.steps):
        try:
            parse_step(text)
        except StepSyntaxError as e:
            raise LabError(
                f"step {k + 1}: {e} (the step grammar: ../shared/spec/scenarios.md)",
                source=sc.source,
            ) from None
    return game


def play(sc: Scenario, game: Game) -> Outcome:
    """Play ``sc``'s steps from its set-up position and check its expectations."""
    for k, (text, illegal) in enumerate(sc.steps):
        if game.is_over:
            return Outcome(
                sc,
                False,
                f"step {k + 1} \"{text}\": the game is already over ({game.summary()})",
                game,
            )
        try:
            game.step(text)
        except IllegalAction as e:
            if illegal:
                break
            return Outcome(sc, False, f"step {k + 1}: {e}", game)
        else:
            if illegal:
                return Outcome(
                    sc,
                    False,
                    f"step {k + 1} \"{text}\" was expected to be illegal but was accepted",
                    game,
                )
    diff = check(game, sc.expect)
    return Outcome(sc, not diff, diff, game)


def run(sc: Scenario, log: bool = False, pool: CardPool | None = None) -> Outcome:
    """Play ``sc`` (with ``pool``: the package's cards and any extra card files)."""
    return play(sc, set_up(sc, log, pool))


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
                    return f"{seat}.{key}: expected {_ms(want_c)}, got {_ms(got)}"
            elif got != want:
                return f"{seat}.{key}: expected {want!r}, got {got!r}"
    return ""


def _ms(c: Counter) -> str:
    return "[" + ", ".join(f"{k}×{v}" if v > 1 else k for k, v in sorted(c.items())) + "]"


def prepare(path: str | Path, log: bool = False, pool: CardPool | None = None) -> list:
    """The scenarios of one file read and set up, as callables that play one and return its
    ``Outcome`` (a malformed file raises its ``LabError`` here)."""
    ready = []
    for sc in load(path):
        position = set_up(sc, log=log, pool=pool)
        ready.append(lambda sc=sc, position=position: play(sc, position))
    return ready


def run_paths(paths, log: bool = False, pool: CardPool | None = None) -> list[Outcome]:
    from lab.games import each_outcome

    return list(each_outcome(paths, log, pool))
