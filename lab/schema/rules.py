"""Rules files and the toggles of a rule set, as schemas derived from ``lab.games.daitenka.rules.RuleSet``.

A rules file holds ``preset = "…"`` and toggles, at top level or under one ``[rules]`` table; a
config's ``[overrides]``, a scenario's ``[overrides]``, ``--set`` and the play-again prompt hold
toggles. Every toggle's type and allowed values come from its one declaration in the game's rule
set (``lab.games.daitenka.rules.RuleSet``, handed in: this module imports no game); it adds the words of the
command line (``on``/``off``, ``"10"``) and nothing else.
"""

from __future__ import annotations

from dataclasses import fields
from functools import lru_cache
from typing import Annotated, Literal, Optional

from pydantic import BeforeValidator, Field, create_model

from lab.errors import LabError
from lab.schema import FLAG
from lab.schema.base import Table, field

_TRUE = {"true", "on", "yes", "1"}
_FALSE = {"false", "off", "no", "0"}


class Toggles(Table):
    KEY_NOUN = "rules key"
    KEYS_LABEL = "valid keys"


def _on_off(value):
    """A typed on/off (from --set or the prompt) as a bool; anything else is left to refuse."""
    if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
        return value.lower() in _TRUE
    return value


def _digits(value):
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return value


def _toggle(allowed) -> tuple[object, str]:
    """The pydantic type of a toggle declared with ``allowed`` and its allowed values in words."""
    if allowed == FLAG:
        return Annotated[bool, BeforeValidator(_on_off)], "true, false (or on, off)"
    if isinstance(allowed, tuple):
        lo, hi = allowed
        return (
            Annotated[int, BeforeValidator(_digits), Field(ge=lo, le=hi)],
            f"whole numbers {lo}–{hi}",
        )
    return Literal[tuple(allowed)], ", ".join(allowed)


@lru_cache(maxsize=None)
def toggles_table(ruleset: type) -> type[Toggles]:
    """Every toggle of a rule set (the dataclass ``ruleset``), each required."""
    spec = {}
    for f in fields(ruleset):
        tp, words = _toggle(f.metadata["allowed"])
        spec[f.name] = (tp, field(..., allowed=words))
    return create_model("RuleToggles", __base__=Toggles, **spec)


@lru_cache(maxsize=None)
def rules_table(ruleset: type, presets: tuple[str, ...]) -> type[Toggles]:
    """A rules table: an optional ``preset`` (one of ``presets``) and any toggles."""
    spec: dict = {"preset": (Optional[Literal[presets]], field(None))}
    for f in fields(ruleset):
        tp, words = _toggle(f.metadata["allowed"])
        spec[f.name] = (Optional[tp], field(None, allowed=words))
    return create_model("RulesTable", __base__=Toggles, **spec)


def rules_file(data: dict, source: str) -> dict:
    """The table of a rules file that holds its toggles: the file itself or its [rules]."""
    if isinstance(data.get("rules"), dict):
        others = sorted(k for k in data if k != "rules")
        if others:
            raise LabError(
                f"unknown key(s) or table(s) {', '.join(others)} beside [rules]; "
                "a rules file holds toggles (and preset = \"…\") at top level "
                "or under [rules], nothing else",
                source=source,
            )
        return data["rules"]
    return data
