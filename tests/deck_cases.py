"""Deck files for the validation tests (rules.md R2): the 織田 army and its broken variants.

Shared by test_pool.py (the loader's LabError) and test_cli.py (`lab decks --check`). Every bad
variant breaks exactly one limit; ``fragments`` are what its one-line error must say — the entry
and the fix (the tests add the file's path).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from lab.games.daitenka.cards.pool import DECKS_DIR

with open(DECKS_DIR / "oda.toml", "rb") as _f:
    ODA: dict[str, int] = tomllib.load(_f)["cards"]


def variant(remove: dict[str, int] | None = None, add: dict[str, int] | None = None) -> dict:
    """The 織田 deck with some copies removed and some added (a count of 0 drops the entry)."""
    cards = dict(ODA)
    for name, n in (remove or {}).items():
        cards[name] -= n
    for name, n in (add or {}).items():
        cards[name] = cards.get(name, 0) + n
    return {k: v for k, v in cards.items() if v != 0}


def deck_text(cards: dict, *, name: str = "試験軍", extra: str = "") -> str:
    lines = [f'name = "{name}"', extra, "", "[cards]"]
    lines += [f'"{k}" = {v}' for k, v in cards.items()]
    return "\n".join(lines) + "\n"


def write_deck(
    path: Path, cards: dict | None = None, *, raw: str | None = None, extra: str = ""
) -> Path:
    path.write_text(raw if raw is not None else deck_text(cards, extra=extra), encoding="utf-8")
    return path


# name -> (cards or raw TOML text, fragments the error must contain)
BAD_DECKS: dict[str, tuple[dict | str, list[str]]] = {
    "unknown_card": (
        variant(remove={"足軽10": 2}, add={"足軽11": 2}),
        ['entry "足軽11"', 'unknown card "足軽11"', "did you mean", "足軽1", "lab cards"],
    ),
    "unique_twice": (
        variant(remove={"足軽6": 1}, add={"濃姫": 1}),
        ['entry "濃姫" = 2', "unique", "set it to 1"],
    ),
    "same_person": (
        variant(remove={"足軽6": 1}, add={"明智光秀（謀反）": 1}),
        ['entry "明智光秀（謀反）"', 'same person as "明智光秀"', "remove one"],
    ),
    "five_tactics": (
        variant(remove={"足軽7": 3}, add={"奇襲": 2, "火計": 1}),
        ["5 tactics", "奇襲×3", "火計×2", "at most 4", "remove 1"],
    ),
    "five_castles": (
        variant(remove={"足軽8": 2}, add={"姫路城": 1, "大坂城": 1}),
        ["5 castles", "姫路城×1", "at most 4", "remove 1"],
    ),
    "no_general": (
        variant(remove={"織田信長": 1}, add={"足軽6": 1}),
        ["exactly one general", "has none", "keep exactly one"],
    ),
    "two_generals": (
        variant(remove={"足軽6": 1}, add={"顕如": 1}),
        ["exactly one general", "has 2", "織田信長", "顕如", "keep exactly one"],
    ),
    "size_29": (variant(remove={"足軽6": 1}), ["29 cards", "exactly 30", "add 1"]),
    "size_31": (variant(add={"足軽6": 1}), ["31 cards", "exactly 30", "remove 1"]),
    "listed_twice": (
        variant(remove={"足軽6": 1}, add={"ashigaru6": 1}),
        ['entry "ashigaru6"', "listed twice", '"足軽6"', "list it once"],
    ),
    "zero_copies": (
        variant() | {"斥候": 0},
        ["[cards] 斥候 = 0 is not allowed", "whole numbers ≥ 1"],
    ),
    "bad_toml": ('name = "壊れ"\n[cards\n"足軽1" = 30\n', ["not valid TOML", "line 2"]),
    "unknown_key": (
        deck_text(ODA, extra='colour = "red"'),
        ['unknown key "colour"', "allowed keys: name, description, cards"],
    ),
    "no_cards": ('name = "空"\n', ['missing key "cards"', "a [cards] table of card name = copies"]),
}

# Legal, but its total strength is 132 = 20% under the armies' 165 (∞ counts as 10).
WEAK_DECK = {"織田信長": 1, "足軽4": 23, "足軽5": 6}
WEAK_TOTAL = 132
