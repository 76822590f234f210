"""大天下's scenario files: the public format of ../shared/spec/scenarios.md, key for key.

A scenario file is one scenario (its keys at top level) or several ``[[scenario]]`` tables
(``lab.schema.scenario.ScenarioFile``, with the step grammar every game shares).
Unknown keys, zones and expectations are refused, and a mistyped expectation is an error in the
file, never a failed ruling. The zones' card names are checked when the position is built
(``lab.games.daitenka.engine.api.Game.from_position``), against the pool the scenario is run with.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, model_validator

from lab.games.daitenka.engine.layout import END_NAMES
from lab.games.daitenka.rules import DEFAULT_PRESET, PRESETS
from lab.schema.base import Table, field
from lab.schema.scenario import STEPS, Step, illegal_only_last, words

Names = list[str]
Count = Annotated[int, Field(ge=0)]
MULTISETS = ("hand", "camp_up", "camp_down", "graveyard", "logistics")
COUNTS = ("hand_count", "deck_count", "walls")


class Zones(Table):
    """``[A]`` / ``[B]``: a seat's zones; values as scenarios.md writes them."""

    KEY_NOUN = "zone"
    KEYS_LABEL = "allowed"
    deck: Any = None
    hand: Any = None
    walls: Any = None
    castle: Any = None
    castle_damaged: Any = None
    camp_up: Any = None
    camp_down: Any = None
    graveyard: Any = None
    logistics: Any = None


class ExpectSeat(Table):
    """``[expect.A]`` / ``[expect.B]``."""

    hand: Names = field(None, allowed="a list of card names")
    camp_up: Names = field(None, allowed="a list of card names")
    camp_down: Names = field(None, allowed="a list of card names")
    graveyard: Names = field(None, allowed="a list of card names")
    logistics: Names = field(None, allowed="a list of card names")
    hand_count: Count = field(None, allowed="a whole number ≥ 0")
    deck_count: Count = field(None, allowed="a whole number ≥ 0")
    walls: Count = field(None, allowed="a whole number ≥ 0")
    castle: str = field(None, allowed="a castle's name or \"\"")
    castle_damaged: bool = field(None, allowed="true or false")


class Expect(Table):
    """``[expect]``: the state after the last step."""

    winner: Literal["A", "B", "draw", ""] = field(None, allowed=words(("A", "B", "draw", "")))
    leader: Literal["A", "B", ""] = field(None, allowed=words(("A", "B", "")))
    to_move: Literal["A", "B", ""] = field(None, allowed=words(("A", "B", "")))
    end_reason: Literal[END_NAMES] = field(None, allowed=words(END_NAMES))
    A: ExpectSeat = field(None, allowed="a table ([expect.A])")
    B: ExpectSeat = field(None, allowed="a table ([expect.B])")


class ScenarioTable(Table):
    name: str = field(example="name = \"…\"")
    rules: Literal[tuple(PRESETS)] = field(
        DEFAULT_PRESET, allowed=", ".join(PRESETS) + " (toggles go in [overrides])"
    )
    seed: Count = field(0, allowed="whole numbers ≥ 0")
    first: Literal["A", "B"] = field("A", allowed="\"A\", \"B\"")
    steps: list[Union[str, Step]] = STEPS
    overrides: dict[str, Any] = field({}, allowed="a table of rule toggles ([overrides])")
    A: Zones = field(None, allowed="a table of zones ([A])")
    B: Zones = field(None, allowed="a table of zones ([B])")
    expect: Expect = field(None, allowed="a table ([expect])")

    @model_validator(mode="after")
    def _illegal_only_last(self):
        return illegal_only_last(self)
