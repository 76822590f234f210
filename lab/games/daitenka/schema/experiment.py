"""大天下's experiment configs (configs/*.toml): their keys and value types, declared with the
lab's schema parts (``lab.schema.experiment``: the ``[[patch]]`` and ``[swap]`` tables, the run
name, the limits) and 大天下's presets.

What needs the card pool, the armies or the rules — an unknown army or card, a toggle's value, a
patch that makes a deck illegal, a bot's parameters — is checked after this schema by
``lab.games.daitenka.experiment``, ``lab.games.daitenka.cards.patch`` and
``lab.games.daitenka.bots.match`` with the same one-line errors.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, Union

from pydantic import Field, field_validator, model_validator

from lab.games.daitenka.rules import DEFAULT_PRESET, PRESETS
from lab.schema.base import Table, field, problem
from lab.schema.experiment import (
    DEFAULT_CHUNK,
    MAX_CHUNK,
    MAX_GAMES,
    MAX_SEED,
    RUN_NAME,
    PatchTable,
    SwapTable,
    Text,
    bots_or_tiers,
    run_name,
)

Preset = Literal[tuple(PRESETS)]


class ExperimentFile(Table):
    name: Optional[str] = RUN_NAME
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)] = field(example="seed = <whole number>")
    games: Annotated[int, Field(ge=1, le=MAX_GAMES)] = field(example="games = <whole number>")
    rules: Union[Preset, Annotated[list[Preset], Field(min_length=1)]] = field(
        [DEFAULT_PRESET], allowed=f"a preset ({', '.join(PRESETS)}) or a list of presets"
    )
    overrides: dict[str, Any] = field({}, allowed="a table of rules toggles ([overrides])")
    grid: dict[str, Any] = field(
        {}, allowed="a table of rules toggles, each a list of values ([grid])"
    )
    armies: Any = "all"  # "all", armies or [seat A, seat B] pairs: resolved with the decks
    bots: Any = None  # bots are checked by lab.games.daitenka.bots.match.parse_bot
    tiers: Any = None
    seat_swap: bool = False
    chunk_size: Annotated[int, Field(ge=1, le=MAX_CHUNK)] = DEFAULT_CHUNK
    extra_cards: Union[str, list[Text]] = field(
        [],
        allowed="a card file or a list of card files, paths relative to this config (e.g. "
        "extra_cards = \"my_cards.toml\")",
    )
    patch: list[PatchTable] = field(
        [], allowed="a list of tables: [[patch]] with name = \"…\" and [[patch.edit]] tables"
    )
    swap: Optional[SwapTable] = None
    # the game is chosen from this key before the rest is read (lab.games); 大天下's own
    # schema accepts only its own name
    game: Literal["daitenka"] = field(
        "daitenka", allowed="\"daitenka\" (大天下) or \"rumble_nation\""
    )

    @field_validator("name")
    @classmethod
    def _a_folder_name(cls, name):
        return run_name(name)

    @field_validator("extra_cards", "rules")
    @classmethod
    def _a_list(cls, value):
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _bots_or_tiers(self):
        return bots_or_tiers(self)

    @field_validator("patch")
    @classmethod
    def _unique_names(cls, patches):
        names = [p.name for p in patches]
        for i, n in enumerate(names):
            if n in names[:i]:
                raise problem(f"patch[{i}]: the name \"{n}\" is used twice; names must be unique")
        return patches
