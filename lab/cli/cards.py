"""``lab cards``, ``lab decks`` and ``lab rules``: the default game's card pool, armies and rule
sets as a designer reads them. This module parses the options; the game's entry shows them
(``GameEntry.cards``, ``decks``, ``show_rules``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lab.cli.common import GAME, PRESET_HELP, CardFiles, command, out, warn
from lab.games.protocol import CardsOptions, DecksOptions, RulesOptions


@command("cards")
def cards_command(
    kind: Annotated[
        str | None, typer.Option("--kind", "-k", metavar="KIND", help=GAME.HELP["kind"])
    ] = None,
    army: Annotated[
        str | None,
        typer.Option(
            "--army",
            "-a",
            metavar="ARMY",
            help="Only the cards of this army's deck, with their copies: a key (oda), a printed name "
            "(織田) or a deck file path.",
        ),
    ] = None,
    card_files: CardFiles = None,
) -> None:
    """List the card pool: id, printed name, kind, strength, abilities and legacy cost."""
    GAME.cards(CardsOptions(kind=kind, army=army, card_files=tuple(card_files or ())), out)


@command("decks")
def decks_command(
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="NAME",
            help="Show one army's card list and strength curve: a key (oda), a printed name (織田) "
            "or a deck file path.",
        ),
    ] = None,
    check: Annotated[
        Path | None, typer.Option("--check", metavar="PATH", help=GAME.HELP["deck_check"])
    ] = None,
    card_files: CardFiles = None,
) -> None:
    """List the nine armies with any balance warnings, show one army, or check a deck file."""
    options = DecksOptions(name=name, check=check, card_files=tuple(card_files or ()))
    GAME.decks(options, out, warn)


@command("rules")
def rules_command(
    preset: Annotated[str | None, typer.Argument(metavar="PRESET", help=PRESET_HELP)] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            "-c",
            metavar="PATH",
            help="A TOML rules file (toggles at top level or under a rules table) applied on top of "
            "the preset. The file may name its own preset = \"…\": it is used when no PRESET is "
            "given; naming a different PRESET on the command line too is refused as a "
            "conflict.",
        ),
    ] = None,
) -> None:
    """Show a resolved rule set (rules.md R14) and its id.

    Each toggle with its value, whether it differs from the preset and what it means, then the
    rule set id that result files record.
    """
    GAME.show_rules(RulesOptions(preset=preset, config=config), out)
