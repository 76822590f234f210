"""The ``lab`` command line (typer): parse arguments, call the layer that owns the work, print.

Owns: the typer ``app`` and its commands, the way results are shown (rich tables on stdout,
warnings on stderr) and the error contract — a ``LabError`` raised anywhere becomes one line on
stderr and exit code 2, never a traceback (anything else is a bug and keeps its traceback). It must
not hold rules, card data or statistics of its own and must not simulate: each command loads what it
names through ``lab.cards.pool`` / ``lab.rules`` (and later the engine, runner and reports) and only
presents the result. To add a command, write a small function decorated with ``@command("name")``
(which wires in the error handling) and keep its presentation helpers beside it.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from lab import __version__
from lab.cards.pool import (BALANCE_TOLERANCE, Card, CardPool, Deck, load_armies, load_army,
                            load_deck, load_pool, balance_warnings)
from lab.cards.vocab import KIND_LABELS, KIND_NAMES, Kind
from lab.errors import LabError, closest
from lab.rules import DESCRIPTIONS, PRESETS, RuleSet

DEFAULT_PRESET = "second_edition"

app = typer.Typer(
    name="lab",
    no_args_is_help=True,
    rich_markup_mode="markdown",
    add_completion=False,
    pretty_exceptions_show_locals=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

# Both consoles look up sys.stdout / sys.stderr when they print (so test runners can capture them).
out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


# ------------------------------------------------------------------------- errors and warnings

def error_exit(e: LabError) -> NoReturn:
    """Print a LabError as one line on stderr and leave with its exit code (2)."""
    line = " ".join(str(e).split("\n"))
    err.print(Text("error: ", style="bold red") + Text(line), soft_wrap=True)
    raise SystemExit(e.exit_code)


def warn(message: str) -> None:
    """A one-line warning on stderr; the command still succeeds."""
    err.print(Text("warning: ", style="bold yellow") + Text(message), soft_wrap=True)


def command(name: str | None = None, **kwargs):
    """Register a command on ``app``; a ``LabError`` inside it ends as one line and exit code 2."""

    def register(fn):
        @functools.wraps(fn)
        def run(*args, **kw):
            try:
                return fn(*args, **kw)
            except LabError as e:
                error_exit(e)

        return app.command(name, **kwargs)(run)

    return register


def main() -> None:
    """Console-script entry point: run the app; a LabError escaping it still ends in one line."""
    try:
        app()
    except LabError as e:
        error_exit(e)


def _version(value: bool) -> None:
    if value:
        out.print(f"daitenka-lab {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Daitenka Lab — a rules-variant simulation lab for the card game 大天下.

    Cards, armies and rule sets are data (lab/cards/*.toml, rule configs in TOML). A bad input
    file or value is reported as one line naming the file, the entry and the fix, with exit code 2.
    """


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

KIND_HELP = "Only cards of this kind: " + ", ".join(
    f"{n} ({KIND_LABELS[k]})" for n, k in KIND_NAMES.items()) + "."


@command("cards")
def cards_command(
    kind: Annotated[str | None, typer.Option("--kind", "-k", metavar="KIND",
                                             help=KIND_HELP)] = None,
    army: Annotated[str | None, typer.Option(
        "--army", "-a", metavar="ARMY",
        help="Only the cards of this army's deck, with their copies: a key (oda), a printed name "
             "(織田) or a deck file path.")] = None,
) -> None:
    """List the card pool: id, printed name, kind, strength, abilities and legacy cost."""
    pool = load_pool()
    wanted = parse_kind(kind) if kind is not None else None
    copies: dict[int, int] | None = None
    title = "card pool"
    if army is not None:
        deck = load_army(army, pool)
        copies = {c.index: n for c, n in deck.entries}
        title = f"{deck.name} ({deck.key})"
    shown = [c for c in pool
             if (wanted is None or c.kind == wanted) and (copies is None or c.index in copies)]
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
    name: Annotated[str | None, typer.Argument(
        metavar="NAME",
        help="Show one army's card list and strength curve: a key (oda), a printed name (織田) "
             "or a deck file path.")] = None,
    check: Annotated[Path | None, typer.Option(
        "--check", metavar="PATH",
        help="Validate a deck file against rules.md R2 and the 30-card size: prints OK and a "
             "summary, or the problem and exit code 2; warns (exit 0) when its total strength is "
             f"more than ±{BALANCE_TOLERANCE:.0%} off the nine armies' mean.")] = None,
) -> None:
    """List the nine armies with any balance warnings, show one army, or check a deck file."""
    if name is not None and check is not None:
        raise LabError("give an army NAME or --check PATH, not both")
    pool = load_pool()
    if check is not None:
        check_deck(check, pool)
    elif name is not None:
        show_deck(load_army(name, pool))
    else:
        list_armies(pool)


def list_armies(pool: CardPool) -> None:
    decks = load_armies(pool)
    table = Table(title="armies", title_justify="left")
    for col, just in (("key", "left"), ("name", "left"), ("size", "right"),
                      ("strength", "right"), ("general", "left"), ("tactics", "right"),
                      ("castles", "right")):
        table.add_column(col, justify=just)
    for d in decks:
        counts = _counts_by_kind(d)
        general = d.general()
        table.add_row(d.key, d.name, str(d.size), str(d.total_strength),
                      general.name if general else "—", str(counts[Kind.TACTIC]),
                      str(counts[Kind.CASTLE]))
    table.caption = ("strength: ∞ counts as 10, tactics and castles as 0; "
                     "`lab decks NAME` shows one army")
    table.caption_justify = "left"
    out.print(table)
    for w in balance_warnings(decks):
        warn(w)


def show_deck(deck: Deck) -> None:
    general = deck.general()
    out.print(Text(f"{deck.name} ({deck.key}) — {deck.description}".rstrip(" —"), style="bold"))
    out.print(f"{deck.path}: {deck.size} cards, total strength {deck.total_strength}, "
              f"general {general.name if general else '—'}", soft_wrap=True)
    copies = {c.index: n for c, n in deck.entries}
    out.print(cards_table([c for c, _ in deck.entries], copies, "cards"))
    out.print(curve_table(deck))


def curve_table(deck: Deck) -> Table:
    curve = deck.strength_curve()
    most = max(curve.values()) or 1
    table = Table(title="strength curve", title_justify="left", show_header=False, box=None,
                  padding=(0, 1))
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
    out.print(Text("OK ", style="bold green")
              + Text(f"{path}: {deck.name}, {deck.size} cards, total strength "
                     f"{deck.total_strength}, general {general.name if general else '—'}, "
                     f"{counts[Kind.TACTIC]} tactics, {counts[Kind.CASTLE]} castles"),
              soft_wrap=True)
    armies = load_armies(pool)
    mean = sum(d.total_strength for d in armies) / len(armies)
    off = (deck.total_strength - mean) / mean
    if abs(off) > BALANCE_TOLERANCE:
        warn(f"{path}: total strength {deck.total_strength} is {off:+.1%} off the "
             f"{len(armies)} armies' mean {mean:.1f} (allowed ±{BALANCE_TOLERANCE:.0%}) — "
             "rebalance its units")


# ---------------------------------------------------------------------------------- lab rules

PRESET_HELP = ("Rules preset: " + ", ".join(PRESETS) + f" (default {DEFAULT_PRESET}).")


@command("rules")
def rules_command(
    preset: Annotated[str | None, typer.Argument(metavar="PRESET", help=PRESET_HELP)] = None,
    config: Annotated[Path | None, typer.Option(
        "--config", "-c", metavar="PATH",
        help="A TOML rules file (toggles at top level or under a rules table) applied on top of "
             "the preset. The file may name its own preset = \"…\": it is used when no PRESET is "
             "given; naming a different PRESET on the command line too is refused as a "
             "conflict.")] = None,
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
            raise LabError(f"the file names preset = \"{named}\" but the command line asks for "
                           f"\"{preset}\"; drop one of them", source=str(config))
        rs = RuleSet.from_toml(config, preset=preset)
        base_name = named or base_name
    else:
        rs = RuleSet.preset(base_name)
    out.print(rules_table(rs, PRESETS[base_name], base_name))
    out.print(f"rule set id: {rs.id}", soft_wrap=True)


def config_preset(path: Path) -> str | None:
    """The preset a rules file names, if it is readable (RuleSet.from_toml reports the rest)."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        return None
    if isinstance(data.get("rules"), dict):
        data = data["rules"]
    named = data.get("preset")
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
        table.add_row(f.name, Text(show_value(value), style="bold" if differs else ""),
                      Text(differs, style="yellow"), DESCRIPTIONS.get(f.name, ""))
    changed = sum(getattr(rs, f.name) != getattr(base, f.name) for f in fields(rs))
    table.caption = f"{changed} toggle(s) differ from {base_name}"
    table.caption_justify = "left"
    return table


# ------------------------------------------------------------------------------- engine commands

def _rules_for(preset: str, config: Path | None) -> RuleSet:
    if config is not None:
        return RuleSet.from_toml(config, preset=preset)
    return RuleSet.preset(preset)


@command("match")
def match_command(
    army_a: Annotated[str, typer.Argument(help="Army of seat A: key (oda), name (織田) or deck file.")],
    army_b: Annotated[str, typer.Argument(help="Army of seat B.")],
    rules: Annotated[str, typer.Option("--rules", "-r", help="Rules preset.")] = DEFAULT_PRESET,
    config: Annotated[Path | None, typer.Option("--config", help="Rules TOML on top of the preset.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the deal and of the bots' choices.")] = 0,
    log: Annotated[bool, typer.Option("--log/--no-log", help="Print every event of the game.")] = True,
) -> None:
    """Play one game between two random bots and print its log and result."""
    from lab.engine.api import play_random_game

    pool = load_pool()
    game = play_random_game(_rules_for(rules, config), load_army(army_a, pool),
                            load_army(army_b, pool), seed=seed, log=log, pool=pool)
    if log:
        for line in game.log_lines():
            out.print(line)
    out.print(Text(f"result: {game.summary()} ({game.decisions} decisions, rules "
                   f"{game.rules.id}, seed {seed})", style="bold"))


@command("scenario")
def scenario_command(
    paths: Annotated[list[Path], typer.Argument(help="Scenario files or folders of them.")],
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Print each failing game's log.")] = False,
) -> None:
    """Run rules scenarios (scenarios.md): one line per scenario, exit 1 if any fails."""
    from lab import scenario as sc

    failed = total = 0
    for path in paths:
        files = sorted(path.glob("*.toml")) if path.is_dir() else [path]
        for f in files:
            for s in sc.load(f):
                total += 1
                try:
                    o = sc.run(s, log=verbose)
                except LabError as e:
                    o = sc.Outcome(s, False, str(e))
                if o.passed:
                    out.print(Text("pass ", style="green") + Text(f"{s.name}  ({f.name})"))
                else:
                    failed += 1
                    out.print(Text("FAIL ", style="bold red") + Text(f"{s.name}  ({f.name}): "
                                                                     f"{o.message}"))
                    if verbose and o.game is not None:
                        for line in o.game.log_lines():
                            out.print("     " + line)
    out.print(f"{total - failed} passed, {failed} failed")
    if failed:
        raise typer.Exit(1)


@command("bench")
def bench_command(
    games: Annotated[int, typer.Option(help="Games per preset and run.")] = 20_000,
    runs: Annotated[int, typer.Option(help="Runs per figure (the median is shown).")] = 3,
    compile_runs: Annotated[int, typer.Option(help="Fresh processes timed for compile and cached start (0 = skip).")] = 3,
    preset: Annotated[list[str] | None, typer.Option("--preset", help="Only these presets.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
) -> None:
    """Engine speed: random-vs-random games on one core, all nine armies, per preset."""
    import json

    from lab import bench

    for p in preset or []:
        RuleSet.preset(p)
    result = bench.run(preset, games=games, runs=runs, compile_runs=compile_runs,
                       progress=None if as_json else (lambda m: err.print(m)))
    if as_json:
        print(json.dumps(result, indent=2))
        return
    table = Table(title=f"engine speed, one core, median of {runs} runs", title_justify="left")
    for col in ("preset", "games/s", "decisions/s", "decisions/game", "cold compile s",
                "cached start s"):
        table.add_column(col, justify="right" if col != "preset" else "left")
    for name, r in result.items():
        fmt = (lambda v: "—" if v is None else f"{v:.2f}")
        table.add_row(name, f"{r['games_per_s']:,.0f}", f"{r['decisions_per_s']:,.0f}",
                      f"{r['decisions_per_game']:.1f}", fmt(r["compile_s"]),
                      fmt(r["cached_start_s"]))
    out.print(table)


if __name__ == "__main__":
    main()
