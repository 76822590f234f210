"""大天下's ``lab cards``, ``lab decks`` and ``lab rules`` (through its entry): the card pool, the
armies and the rule sets as a designer reads them.

Owns how cards, decks, strength curves and rule sets are shown (rich tables) and the deck
strength warning of ``lab decks --check`` and ``lab run``. The data comes from ``cards.pool`` and
``rules``; this module checks nothing of its own beyond the command-line values, and prints to
the console the command line gives it (``lab.cli.cards`` parses the options).
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from rich.table import Table
from rich.text import Text

from lab.games.daitenka.cards.pool import (
    Card,
    CardPool,
    Deck,
    balance_warnings,
    load_armies,
    load_army,
    load_deck,
    load_pool,
    strength_warning,
)
from lab.games.daitenka.cards.vocab import KIND_LABELS, KIND_NAMES, Kind
from lab.errors import did_you_mean, LabError, read_toml
from lab.games.daitenka.rules import DEFAULT_PRESET, DESCRIPTIONS, PRESETS, RuleSet
from lab.games.protocol import CardsOptions, DecksOptions, RulesOptions


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
    did = did_you_mean(key, KIND_NAMES)
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


def cards(o: CardsOptions, console) -> None:
    """List the card pool: id, printed name, kind, strength, abilities and legacy cost."""
    pool = load_pool(extra=tuple(o.card_files))
    wanted = parse_kind(o.kind) if o.kind is not None else None
    copies: dict[int, int] | None = None
    title = "card pool"
    if o.army is not None:
        deck = load_army(o.army, pool)
        copies = {c.index: n for c, n in deck.entries}
        title = f"{deck.name} ({deck.key})"
    shown = [
        c
        for c in pool
        if (wanted is None or c.kind == wanted) and (copies is None or c.index in copies)
    ]
    console.print(cards_table(shown, copies, title))


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


def decks(o: DecksOptions, console, warn) -> None:
    """List the nine armies with any balance warnings, show one army, or check a deck file."""
    if o.name is not None and o.check is not None:
        raise LabError("give an army NAME or --check PATH, not both")
    pool = load_pool(extra=tuple(o.card_files))
    if o.check is not None:
        check_deck(o.check, pool, console, warn)
    elif o.name is not None:
        show_deck(load_army(o.name, pool), console)
    else:
        list_armies(pool, console, warn)


def list_armies(pool: CardPool, console, warn) -> None:
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
    console.print(table)
    for w in balance_warnings(decks):
        warn(w)


def show_deck(deck: Deck, console) -> None:
    general = deck.general()
    console.print(Text(f"{deck.name} ({deck.key}) — {deck.description}".rstrip(" —"), style="bold"))
    console.print(
        f"{deck.path}: {deck.size} cards, total strength {deck.total_strength}, "
        f"general {general.name if general else '—'}",
        soft_wrap=True,
    )
    copies = {c.index: n for c, n in deck.entries}
    console.print(cards_table([c for c, _ in deck.entries], copies, "cards"))
    console.print(curve_table(deck))


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


def check_deck(path: Path, pool: CardPool, console, warn) -> None:
    deck = load_deck(path, pool)
    counts = _counts_by_kind(deck)
    general = deck.general()
    console.print(
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


def rules(o: RulesOptions, console) -> None:
    """Show a resolved rule set (rules.md R14) and its id.

    Each toggle with its value, whether it differs from the preset and what it means, then the
    rule set id that result files record.
    """
    preset, config = o.preset, o.config
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
    console.print(rules_table(rs, PRESETS[base_name], base_name))
    console.print(f"rule set id: {rs.id}", soft_wrap=True)


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
