"""Card files and deck files: their tables, keys and value types (cards.md, lab/games/daitenka/cards/*.toml).

A card file holds ``cards = [ … ]`` (one inline table per card type) and ``[ability.ID]`` tables
whose ``effects`` are rows of the closed vocabulary of ``lab.games.daitenka.cards.vocab``; the package's
``cards.toml`` and a designer's extra card file are the same format. A deck file holds ``name``,
``description`` and a ``[cards]`` table of card name = copies. What needs the whole pool — an
unknown card or ability, a name used twice, a deck's R2 limits, the engine's trigger × effect
support — is checked by ``lab.games.daitenka.cards.pool`` after this schema.
"""

from __future__ import annotations

from typing import Annotated, Literal, Optional, Union

from pydantic import BeforeValidator, Field, model_validator

from lab.games.daitenka.cards.vocab import CONDITION_NAMES, EFFECT_NAMES, KIND_NAMES, TRIGGER_NAMES
from lab.schema.base import Table, field, problem

INF_WORDS = ("inf", "∞")


def _lower(value):
    return value.lower() if isinstance(value, str) else value


def _names(names: dict):
    """A vocabulary word, matched without regard to case."""
    return Annotated[Literal[tuple(names)], BeforeValidator(_lower)]


Whole0 = Annotated[int, Field(ge=0)]


class EffectRow(Table):
    trigger: _names(TRIGGER_NAMES) = field(example="trigger = \"on_win\"")
    effect: _names(EFFECT_NAMES) = field(example="effect = \"draw\"")
    amount: Whole0 = 0
    condition: _names(CONDITION_NAMES) = "none"


class AbilityTable(Table):
    name: str = field(example="name = \"<printed name>\"")
    text: str = ""
    family: Optional[str] = None
    effects: list[EffectRow] = []


class CardEntry(Table):
    id: str = field(example="id = \"<romaji id>\"")
    name: str = field(example="name = \"<printed name>\"")
    kind: _names(KIND_NAMES) = field(example="kind = \"unit\"")
    strength: Optional[Union[int, Literal[INF_WORDS]]] = field(
        None, allowed="whole numbers 1–10, or \"inf\" for a general"
    )
    person: str = ""
    abilities: list[str] = []
    cost: Whole0 = 0

    @model_validator(mode="after")
    def _strength_fits_the_kind(self):
        unit = self.kind in ("unit", "warlord", "general")
        s = self.strength
        if not unit:
            if s is not None:
                raise problem(f"a {self.kind} has no strength; remove `strength`")
        elif s is None:
            raise problem(
                "strength is missing; add "
                + (
                    "strength = \"inf\" (a general's)"
                    if self.kind == "general"
                    else "strength = <whole number 1–10>"
                )
            )
        elif isinstance(s, int) and not 1 <= s <= 10:
            raise problem(
                f"strength = {s!r} is not allowed; allowed values: whole numbers "
                "1–10, or \"inf\" for a general"
            )
        elif self.kind == "general" and s not in INF_WORDS:
            raise problem("a general (総大将) has strength \"inf\"")
        return self


class CardFile(Table):
    cards: list[CardEntry] = field(
        [],
        allowed="a list of card tables: cards = [{ id = \"…\", "
        "name = \"…\", kind = \"unit\", … }, …]",
    )
    ability: dict[str, AbilityTable] = field({}, allowed="[ability.ID] tables")


class DeckFile(Table):
    name: Optional[str] = None
    description: str = ""
    cards: Annotated[dict[str, Annotated[int, Field(ge=1)]], Field(min_length=1)] = field(
        allowed="a [cards] table of card name = copies",
        example="a [cards] table of card name = copies",
    )
