"""Experiment configs (configs/*.toml): the parts every game's experiment file shares — the
run name, the limits, the ``[[patch]]`` tables of card patches and the ``[swap]`` table of
``lab swap`` — and ``GameExperimentFile``, the keys of a game without a table of its own. A game
with presets, armies or cards of its own declares its file in its folder from these parts
(大天下's: ``lab.games.daitenka.schema.experiment.ExperimentFile``); what needs its cards or
rules is checked after the schema, by the game, with the same one-line errors.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BeforeValidator, Field, field_validator, model_validator

from lab.schema.base import Table, field, problem

MAX_SEED = 2**63 - 1
MAX_GAMES = 10**9
DEFAULT_CHUNK = 2000
MAX_CHUNK = 1_000_000
BASE = "base"  # the patch name of the unpatched cards (reserved)
OPS = ("strength", "amount", "off", "add", "replace")  # what one [[patch.edit]] does
_RUN_NAME = re.compile(r"^[^/\\\s.][^/\\\s]*$")
PATCH_NAME = re.compile(r"^[^\s@+=/\\.][^\s@+=/\\]{0,63}$")
PATCH_NAME_ALLOWED = (
    "a name of up to 64 characters without spaces or the characters @ + = / \\, "
    "not starting with a dot (it becomes part of the variant id)"
)


def slug(text: str) -> str:
    """``text`` (a card's printed name) fit for a patch name and a folder name: the characters
    ``PATCH_NAME`` refuses, and spaces, become ``_``."""
    return re.sub(r"[/\\\s@+=]+", "_", text)


Whole0 = Annotated[int, Field(ge=0)]
Text = Annotated[str, Field(min_length=1)]


def _one_table_is_a_list(value):
    return [value] if isinstance(value, dict) else value


class Edit(Table):
    """One ``[[patch.edit]]``: a card (and optionally an army) and exactly one change."""

    card: str = field(example="card = \"<card name>\"")
    army: str = field("", allowed="an army key of the experiment, e.g. \"takeda\"")
    ability: Optional[str] = None
    row: Optional[Whole0] = None
    strength: Optional[Union[int, Literal["inf", "∞"]]] = field(
        None, allowed="whole numbers 1–10, or \"inf\" for a general"
    )
    amount: Optional[Whole0] = None
    off: Optional[Union[bool, str]] = field(
        None, allowed="the id or printed name of one of the card's abilities, or \"all\""
    )
    add: Optional[Union[str, list[dict], dict]] = field(
        None,
        allowed="an ability of the pool (id or printed name) or effect rows "
        "{ trigger, effect, amount, condition }",
    )
    replace: Optional[str] = None

    @model_validator(mode="after")
    def _exactly_one_change(self):
        ops = [k for k in OPS if k in self.model_fields_set]
        if len(ops) != 1:
            got = f"it has {', '.join(ops)}" if ops else "it has none"
            raise problem(
                f"an edit does exactly one of {', '.join(OPS)}; {got} — split it into "
                "several [[patch.edit]] tables"
            )
        for key in ("ability", "row"):
            if key in self.model_fields_set and ops[0] != "amount":
                raise problem(
                    f"\"{key}\" goes with amount only; for {ops[0]} remove it"
                    + (
                        " and write off = \"<ability>\""
                        if ops[0] == "off" and key == "ability"
                        else ""
                    )
                )
        return self

    @property
    def op(self) -> str:
        return next(k for k in OPS if k in self.model_fields_set)


class PatchTable(Table):
    """One ``[[patch]]``: a named list of edits (the form ``Patch.as_dict`` writes)."""

    name: str = field(example="name = \"<patch name>\"")
    description: str = ""
    edit: Annotated[list[Edit], BeforeValidator(_one_table_is_a_list), Field(min_length=1)] = field(
        example="at least one edit: [[patch.edit]] with card = \"…\" and one of " + ", ".join(OPS),
        allowed="[[patch.edit]] tables with card = \"…\" and one of " + ", ".join(OPS),
    )
    allow_no_general: bool = False  # lab value's own patches; a manifest keeps it

    @field_validator("name")
    @classmethod
    def _a_variant_id_part(cls, name: str) -> str:
        if name == BASE:
            raise problem(
                f"the name \"{BASE}\" is reserved for the unpatched cards; choose another name"
            )
        if not PATCH_NAME.match(name):
            raise problem(f"name = {name!r} is not allowed; allowed values: {PATCH_NAME_ALLOWED}")
        return name


class SwapTable(Table):
    """``[swap]``: the defaults of ``lab swap CONFIG``."""

    card: Text = field(example="card = \"<card name>\"", allowed="a card name")
    with_: Text = field(alias="with", example="with = \"<card name>\"", allowed="a card name")
    army: Optional[Text] = field(
        None,
        example="army = \"<army key or name>\"",
        allowed="an army of the config holding the card",
    )


RUN_NAME = field(
    None,
    allowed="a non-empty name without spaces or slashes that does not start with a dot (it "
    "names the results folder)",
)  # an experiment file's ``name``: Optional[str]


def run_name(name):
    """An experiment file's ``name`` checked (its ``field_validator``)."""
    if name is not None and not _RUN_NAME.match(name):
        raise problem(
            f"name = {name!r} is not allowed; allowed values: a non-empty name "
            "without spaces or slashes that does not start with a dot (it names "
            "the results folder)"
        )
    return name


def bots_or_tiers(table):
    """An experiment file's check (its ``model_validator``): one of ``bots`` and ``tiers``."""
    if table.bots is not None and table.tiers is not None:
        raise problem("give bots = … (one tier) or tiers = [ … ] (several), not both")
    return table


class GameExperimentFile(Table):
    """An experiment of a game without a table of its own (``game = "rumble_nation"``): the
    keys every game's runs share. Presets, toggles and bots are the game's own and are checked by it
    (``lab.games``) with the same one-line errors."""

    game: str = field(example="game = \"rumble_nation\"")
    name: Optional[str] = RUN_NAME
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)] = field(example="seed = <whole number>")
    games: Annotated[int, Field(ge=1, le=MAX_GAMES)] = field(example="games = <whole number>")
    rules: Union[Text, Annotated[list[Text], Field(min_length=1)]] = field(
        None, allowed="a preset of the game or a list of presets"
    )
    overrides: dict[str, Any] = field({}, allowed="a table of rules toggles ([overrides])")
    grid: dict[str, Any] = field(
        {}, allowed="a table of rules toggles, each a list of values ([grid])"
    )
    bots: Any = None  # one bot for every seat, or a list with one per seat: the game's parser
    tiers: Any = None
    chunk_size: Annotated[int, Field(ge=1, le=MAX_CHUNK)] = DEFAULT_CHUNK

    @field_validator("name")
    @classmethod
    def _a_folder_name(cls, name):
        return run_name(name)

    @field_validator("rules")
    @classmethod
    def _a_list(cls, value):
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _bots_or_tiers(self):
        return bots_or_tiers(self)
