"""Replay files of ``lab play`` (JSON, ``lab.games.daitenka.play.record``): their keys and value types.

The file's ``format`` and ``version`` are checked first by ``lab.games.daitenka.play.record.load_record`` (a file
of another kind is "not a replay file", not a list of bad keys); this schema then checks the
rest. Card names and the decks' legality are checked against the pool afterwards.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from pydantic import Field

from lab.games.daitenka.rules import DEFAULT_PRESET, PRESETS
from lab.schema.base import Table, field

Seat = Literal["A", "B"]


class ReplayRules(Table):
    preset: Literal[tuple(PRESETS)] = DEFAULT_PRESET
    id: str = ""
    toggles: dict[str, Any] = field(example="rules.toggles, the resolved toggles")


class ReplayArmy(Table):
    key: str = field(example="key = the army's key")
    name: str = ""
    path: str = ""
    cards: list[Annotated[tuple[str, Annotated[int, Field(ge=1)]], Field(strict=False)]] = field(
        allowed="[[name, copies], …]", example="cards = [[name, copies], …]"
    )


class ReplayStep(Table):
    seat: Seat
    by: Literal["human", "bot"]
    step: str


class ReplayFile(Table):
    format: str
    version: int
    created: str = ""
    status: str = ""
    rules: ReplayRules = field(example="rules = {preset, id, toggles}")
    armies: dict[Seat, ReplayArmy] = field(example="armies = {A: …, B: …}")
    players: dict[Seat, Literal["human", "bot"]] = field(example="players = {A: …, B: …}")
    bot: str = ""
    seed: Annotated[int, Field(ge=0)] = field(
        allowed="a whole number ≥ 0 (the file was edited or damaged)", example="seed"
    )
    seed_words: list[int] = []
    first: str = ""
    start: Optional[dict[str, Any]] = None
    steps: list[ReplayStep] = field(example="steps = [{seat, by, step}, …]")
    result: dict[str, Any] = {}
    final: dict[str, Any] = {}
