"""``lab cards``, ``lab decks`` and ``lab rules``: the card pool, the armies and the rule sets as
a designer reads them.

Owns how cards, decks, strength curves and rule sets are shown (rich tables) and the deck
strength warning of ``lab decks --check`` and ``lab run``. The data comes from ``lab.games.daitenka.cards.pool``
and ``lab.games.daitenka.rules``; this module checks nothing of its own beyond the command-line values.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from lab.games.daitenka.cards.pool import (
    BALANCE_TOLERANCE,
    Card,
    CardPool,
    Deck,
    balance_warnings,
    load_armies,
    load_army,
    load_deck,
    strength_warning,
)
from lab.games.daitenka.cards.vocab import KIND_LABELS, KIND_NAMES, Kind
from lab.cli.common import PRESET_HELP, CardFiles, command, out, pool_of, warn
from lab.errors import LabError, closest, read_toml
from lab.games.daitenka.rules import DEFAULT_PRESET, DESCRIPTIONS, PRESETS, RuleSet


# ------------------------------------------------------------------------------- card display


def ability_names(card: Card) -> str:
    """The card's abilities as printed, 〈…〉, with the rulebook family when it differs."""
    parts = []
    for a in card.abilities:
        parts.append(f"〈{a.name}〉" + (f"({a.family})" if a.family != a.name else ""))
    return " ".join(parts) or "—"


def cost_label(card: Card) -> str:
    return str(card.cost) if card.kind == Kind.TACTIC or card.cost else "—"


def parse_kind(value: str) -> Kind:
    """A kind by name (unit, warlord, general, tactic, castle) or printed label (兵, 武将, …)."""
    key = value.strip().lower()
    if key in KIND_NAMES:
        return KIND_NAMES[key]
    for kind, label in KIND_LABELS.items():
        if value.strip() == label:
            return kind
    allowed = ", ".join(f"{n} ({KIND_LABELS[k]})" for n, k in KIND_NAMES.items())
    hint = closest(key, KIND_NAMES)
    did = f"did you mean {', '.join(hint)}? " if hint else ""
    raise LabError(f"--kind \"{value}\" is not a card kind; {did}allowed: {allowed}")


def _counts_by_kind(deck: Deck) -> dict[Kind, int]:
    counts = {k: 0 for k in Kind}
    for card, n in deck.entries:
        counts[card.kind] += n
    return counts


# ---------------------------------------------------------------------------------- lab cards

KIND_HELP = (
    "Only cards of this kind: "
    + ", ".join(f"{n} ({KIND_LABELS[k]})" for n, k in KIND_NAMES.items())
    + "."
)


@command("cards")
def cards_command(
    kind: Annotated[
        str | None, typer.Option("--kind", "-k", metavar="KIND", help=KIND_HELP)
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
    pool = pool_of(card_files)
    wanted = parse_kind(kind) if kind is not None else None
    copies: dict[int, int] | None = None
    title = "card pool"
    if army is not None:
        deck = load_army(army, pool)
        copies = {c.index: n for c, n in deck.entries}
        title = f"{deck.name} ({deck.key})"
    shown = [
        c
        for c in pool
        if (wanted is None or c.kind == wanted) and (copies is None or c.index in copies)
    ]
    out.print(cards_table(shown, copies, title))


def cards_table(cards: list[Card], copies: dict[int, int] | None, title: str) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("id", style="dim", overflow="fold")
    table.add_column("name", overflow="fold")
    table.add_column("kind")
    table.add_column("str", justify="right")
    if copies is not None:
        table.add_column("copies", justify="right")
    table.add_column("abilities")
    table.add_column("cost", justify="right")
    for c in cards:
        row = [c.id, c.name, KIND_LABELS[c.kind], c.strength_label]
        if copies is not None:
            row.append(str(copies[c.index]))
        row += [ability_names(c), cost_label(c)]
        table.add_row(*row)
    n_copies = f", {sum(copies[c.index] for c in cards)} copies" if copies is not None else ""
    table.caption = f"{len(cards)} cards{n_copies}"
    table.caption_justify = "left"
    return table


# ---------------------------------------------------------------------------------- lab decks


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
        Path | None,
        typer.Option(
            "--check",
            metavar="PATH",
            help="Validate a deck file against rules.md R2 and the 30-card size: prints OK and a "
            "summary, or the problem and exit code 2; warns (exit 0) when its total strength is "
            f"more than ±{BALANCE_TOLERANCE:.0%} off the nine armies' mean.",
        ),
    ] = None,
    card_files: CardFiles = None,
) -> None:
    """List the nine armies with any balance warnings, show one army, or check a deck file."""
    if name is not None and check is not None:
        raise LabError("give an army NAME or --check PATH, not both")
    pool = pool_of(card_files)
    if check is not None:
        check_deck(check, pool)
    elif name is not None:
        show_deck(load_army(name, pool))
    else:
        list_armies(pool)


def list_armies(pool: CardPool) -> None:
    decks = load_armies(pool)
    table = Table(title="armies", title_justify="left")
    for col, just in (
        ("key", "left"),
        ("name", "left"),
        ("size", "right"),
        ("strength", "right"),
        ("general", "left"),
        ("tactics", "right"),
        ("castles", "right"),
    ):
        table.add_column(col, justify=just)
    for d in decks:
        counts = _counts_by_kind(d)
        general = d.general()
        table.add_row(
            d.key,
            d.name,
            str(d.size),
            str(d.total_strength),
            general.name if general else "—",
            str(counts[Kind.TACTIC]),
            str(counts[Kind.CASTLE]),
        )
    table.caption = (
        "strength: ∞ counts as 10, tactics and castles as 0; `lab decks NAME` shows one army"
    )
    table.caption_justify = "left"
    out.print(table)
    for w in balance_warnings(decks):
        warn(w)


def show_deck(deck: Deck) -> None:
    general = deck.general()
    out.print(Text(f"{deck.name} ({deck.key}) — {deck.description}".rstrip(" —"), style="bold"))
    out.print(
        f"{deck.path}: {deck.size} cards, total strength {deck.total_strength}, "
        f"general {general.name if general else '—'}",
        soft_wrap=True,
    )
    copies = {c.index: n for c, n in deck.entries}
    out.print(cards_table([c for c, _ in deck.entries], copies, "cards"))
    out.print(curve_table(deck))


def curve_table(deck: Deck) -> Table:
    curve = deck.strength_curve()
    most = max(curve.values()) or 1
    table = Table(
        title="strength curve", title_justify="left", show_header=False, box=None, padding=(0, 1)
    )
    table.add_column(justify="right")
    table.add_column(justify="right")
    table.add_column()
    for label, n in curve.items():
        table.add_row(label, str(n), "█" * round(n * 20 / most) if n else "")
    return table


def check_deck(path: Path, pool: CardPool) -> None:
    deck = load_deck(path, pool)
    counts = _counts_by_kind(deck)
    general = deck.general()
    out.print(
        Text("OK ", style="bold green")
        + Text(
            f"{path}: {deck.name}, {deck.size} cards, total strength "
            f"{deck.total_strength}, general {general.name if general else '—'}, "
            f"{counts[Kind.TACTIC]} tactics, {counts[Kind.CASTLE]} castles"
        ),
        soft_wrap=True,
    )
    w = strength_warning(deck, load_armies(pool))
    if w:
        warn(w)


# ---------------------------------------------------------------------------------- lab rules


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
    if preset is not None:
        RuleSet.preset(preset)  # an unknown name fails here, not blamed on the config file
    base_name = preset or DEFAULT_PRESET
    if config is not None:
        named = config_preset(config)
        if named is not None and preset is not None and named != preset:
            raise LabError(
                f"the file names preset = \"{named}\" but the command line asks for "
                f"\"{preset}\"; drop one of them",
                source=str(config),
            )
        rs = RuleSet.from_toml(config, preset=preset)
        base_name = named or base_name
    else:
        rs = RuleSet.preset(base_name)
    out.print(rules_table(rs, PRESETS[base_name], base_name))
    out.print(f"rule set id: {rs.id}", soft_wrap=True)


def config_preset(path: Path) -> str | None:
    """The preset a rules file names, if any (a bad file stops here, in one line)."""
    from lab.schema.rules import rules_file

    named = rules_file(read_toml(path), str(path)).get("preset")
    return named if isinstance(named, str) else None


def show_value(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def rules_table(rs: RuleSet, base: RuleSet, base_name: str) -> Table:
    table = Table(title=f"rules (preset {base_name})", title_justify="left")
    table.add_column("key", no_wrap=True)
    table.add_column("value", no_wrap=True)
    table.add_column("vs preset", no_wrap=True)
    table.add_column("description")
    for f in fields(rs):
        value, was = getattr(rs, f.name), getattr(base, f.name)
        differs = f"changed, was {show_value(was)}" if value != was else ""
        table.add_row(
            f.name,
            Text(show_value(value), style="bold" if differs else ""),
            Text(differs, style="yellow"),
            DESCRIPTIONS.get(f.name, ""),
        )
    changed = sum(getattr(rs, f.name) != getattr(base, f.name) for f in fields(rs))
    table.caption = f"{changed} toggle(s) differ from {base_name}"
    table.caption_justify = "left"
    return table
