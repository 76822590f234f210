"""The ``lab`` command line (typer): parse arguments, call the layer that owns the work, print.

Owns: the typer ``app`` and its commands, the way results are shown (rich tables on stdout,
warnings on stderr) and the error contract — a ``LabError`` raised anywhere becomes one line on
stderr and exit code 2, never a traceback (anything else is a bug and keeps its traceback); from
the console script (``main``) a bad option or argument is one line too, and Ctrl-C exits 130. It must
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
    """Console-script entry point: run the app. A LabError escaping it, a bad option or argument
    and Ctrl-C each end in one line (exit 2, 2 and 130) instead of a box or a traceback."""
    try:
        code = app(standalone_mode=False)
    except LabError as e:
        error_exit(e)
    except KeyboardInterrupt:
        interrupted()
    except Exception as e:
        # click's exceptions, matched by name: typer may bring click or its own copy of it
        kinds = {c.__name__ for c in type(e).__mro__}
        if "NoArgsIsHelpError" in kinds:
            err.print(e.format_message())
            raise SystemExit(2) from None
        if "UsageError" in kinds:
            ctx = getattr(e, "ctx", None)
            where = ctx.command_path if ctx is not None else "lab"
            error_exit(LabError(f"{e.format_message()} (`{where} --help` lists the options)"))
        if "ClickException" in kinds:
            error_exit(LabError(e.format_message()))
        if "Abort" in kinds:
            interrupted()
        raise
    raise SystemExit(code if isinstance(code, int) else 0)


def interrupted() -> NoReturn:
    err.print(Text("error: ", style="bold red") + Text("interrupted"))
    raise SystemExit(130)


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
    w = strength_warning(deck, load_armies(pool))
    if w:
        warn(w)


def strength_warning(deck: Deck, armies: list[Deck]) -> str | None:
    """The balance warning of `lab decks --check` for a deck file, or None."""
    mean = sum(d.total_strength for d in armies) / len(armies)
    off = (deck.total_strength - mean) / mean
    if abs(off) <= BALANCE_TOLERANCE:
        return None
    return (f"{deck.path}: total strength {deck.total_strength} is {off:+.1%} off the "
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
    seed: Annotated[int, typer.Option(min=0, help="Seed of the deal and of the bots' choices (a whole number ≥ 0).")] = 0,
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
    games: Annotated[int, typer.Option(min=1, help="Games per preset and run.")] = 20_000,
    runs: Annotated[int, typer.Option(min=1, help="Runs per figure (the median is shown).")] = 3,
    compile_runs: Annotated[int, typer.Option(
        min=0, help="Fresh processes timed compiling the engine with an empty cache (minutes "
                    "each; their temporary caches are removed; 0 = skip).")] = 1,
    start_runs: Annotated[int, typer.Option(
        min=0, help="Fresh processes timed loading the compiled engine (0 = skip).")] = 3,
    preset: Annotated[list[str] | None, typer.Option("--preset", help="Only these presets.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
) -> None:
    """Engine speed: random-vs-random games on one core, all nine armies, per preset; then the
    cold compile and cached start of a fresh process. Each step shows what runs and for how long."""
    import json

    from lab import bench
    from lab.sim.progress import status

    for p in preset or []:
        RuleSet.preset(p)
    console = None if as_json else err
    result = bench.run(preset, games=games, runs=runs, compile_runs=compile_runs,
                       start_runs=start_runs,
                       progress=None if as_json else (lambda m: err.print(m)),
                       status=lambda m: status(console, m))
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


# ---------------------------------------------------------------------------- run and replay

@command("run")
def run_command(
    config: Annotated[Path, typer.Argument(
        metavar="CONFIG", help="Experiment file (TOML), e.g. configs/default.toml.")],
    games: Annotated[int | None, typer.Option(
        "--games", "-n", metavar="N",
        help="Deals per cell instead of the file's `games`, for a quick look (another "
             "experiment: by default it goes to results/NAME-gamesN).")] = None,
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-j", metavar="N",
        help="Worker processes (default: every core). Records do not depend on it.")] = None,
    out_dir: Annotated[Path | None, typer.Option(
        "--out", "-o", metavar="DIR",
        help="Results folder (default results/NAME, NAME from the config; with --games N, "
             "results/NAME-gamesN).")] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Continue an interrupted run in --out: check the chunks already "
                         "written (a damaged one is replayed) and play the missing ones. A "
                         "folder holding another experiment is refused.")] = False,
    fresh: Annotated[bool, typer.Option(
        "--fresh", help="Delete the records already in --out (games/, cards/, manifest.json) "
                        "and play every game again. Without it, a folder that holds this "
                        "experiment's complete records only shows their summary.")] = False,
    backend: Annotated[str, typer.Option(
        "--backend", metavar="loky|dask",
        help="loky: local worker processes; dask: a Dask cluster through joblib's dask "
             "backend (without --scheduler, a local cluster of --jobs workers).")] = "loky",
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", metavar="ADDRESS",
        help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (with --backend dask; the "
             "workers must see --out on a shared file system).")] = None,
) -> None:
    """Run an experiment: every variant × matchup × bot tier, games in parallel chunks.

    Writes games/ and cards/ Parquet chunks and manifest.json to the results folder (see
    docs/records.md), shows progress, and ends with a summary per variant and per army. Run
    again on a complete folder, it shows the summary without playing (`--fresh` plays again).
    Interrupted runs keep every finished chunk; `--resume` completes them. One run writes a
    folder at a time (a second is refused while the first lives).
    """
    from lab.sim import config as sim_config, runner, summary

    exp = sim_config.load_experiment(config, games=games)
    out_path = out_dir or runner.default_out(exp, games_option=games is not None)
    pool = load_pool()
    for army in exp.armies:
        if not army.builtin:
            w = strength_warning(load_deck(army.path, pool), load_armies(pool))
            if w:
                warn(w)
    patches = f" × {len(exp.patches)} card patch(es)" if len(exp.patches) > 1 else ""
    result = runner.run(exp, out_path, jobs=jobs, resume=resume, fresh=fresh, backend=backend,
                        scheduler=scheduler, console=err, announce=lambda: err.print(
                            f"{exp.name}: {len(exp.variants)} variant(s){patches} × "
                            f"{len(exp.matchups)} matchup(s) × {len(exp.tiers)} bot tier(s) × "
                            f"{exp.games} deal(s){' × 2 seat orders' if exp.seat_swap else ''}"
                            f" = {exp.total_games:,} games → {out_path}", soft_wrap=True))
    if result.already_complete:
        err.print(f"{out_path} already holds this experiment's complete records; their summary "
                  "follows (add --fresh to play them again)", soft_wrap=True)
    elif result.chunks_played:
        err.print(f"played {result.played:,} games in {result.play_seconds:.1f} s "
                  f"({result.games_per_s:,.0f} games/s); {result.seconds:.1f} s in all")
    else:
        err.print("every chunk was already written; nothing to play")
    if result.errors:
        warn(f"{result.errors} game(s) hit an engine limit (column `error` in games records)")
    for table in summary.tables(result.out, {a.key: a.name for a in exp.armies}):
        out.print(table)
    out.print(f"records: {result.out}/games, {result.out}/cards, {result.out}/manifest.json",
              soft_wrap=True)


# a negative GAME_ID reaches the command (and its one-line error) instead of "No such option"
@command("replay", context_settings={"ignore_unknown_options": True})
def replay_command(
    results: Annotated[Path, typer.Argument(
        metavar="RESULTS_DIR|REPLAY_FILE",
        help="A results folder written by `lab run`, or a replay file (.json) written by `lab play`.")],
    game_id: Annotated[int | None, typer.Argument(
        metavar="[GAME_ID]",
        help="The game's id (column game_id of the games records); not with a replay file.")] = None,
    log: Annotated[bool, typer.Option("--log/--no-log", help="Print every event.")] = True,
    save_scenario: Annotated[Path | None, typer.Option(
        "--save-scenario", metavar="PATH",
        help="With a `lab play` replay file: also write it as a scenario file.")] = None,
) -> None:
    """Replay a recorded game (or a `lab play` match) with its readable log, and check that it
    reproduces the record.

    Exit code 1 if the replay does not reproduce the recorded result.
    """
    if results.is_file():
        if game_id is not None:
            raise LabError(f"{results} is a replay file written by `lab play`; give no GAME_ID")
        from lab.play import show_replay_file

        code = show_replay_file(results, console=out, log=log, save_scenario=save_scenario)
        if code:
            raise typer.Exit(code)
        return
    if game_id is None:
        raise LabError(f"give the GAME_ID of a game in {results}, or the path of a replay file "
                       "written by `lab play`")
    if game_id < 0:
        raise LabError(f"GAME_ID {game_id} is not allowed; game ids are whole numbers ≥ 0 "
                       "(column game_id of the games records)")
    from lab.sim.replay import replay

    r = replay(results, game_id)
    row = r.record
    out.print(Text(f"game {game_id}: {row['variant']}, {row['army_a_name']} ({row['army_a']}) vs "
                   f"{row['army_b_name']} ({row['army_b']}), {row['tier']}, deal {row['deal']}"
                   f"{', seats swapped' if row['swapped'] else ''}", style="bold"),
              soft_wrap=True)
    if log:
        for line in r.game.log_lines():
            out.print(line, soft_wrap=True)
    out.print(Text(f"result: {r.game.summary()} ({r.game.decisions} decisions)", style="bold"),
              soft_wrap=True)
    for w in r.warnings:
        warn(w)
    if not r.reproduced:
        err.print(Text("does not reproduce the record: ", style="bold red")
                  + Text("; ".join(r.mismatches)), soft_wrap=True)
        raise typer.Exit(1)
    out.print(Text("reproduces the recorded game", style="green"))


# --------------------------------------------------------------------------------- lab report

@command("report")
def report_command(
    results: Annotated[Path, typer.Argument(
        metavar="RESULTS",
        help="A results folder written by `lab run`: manifest.json plus games and cards as "
             "Parquet (chunk folders or merged files).")],
    fmt: Annotated[str, typer.Option(
        "--format", "-f", metavar="FORMAT",
        help="html: one self-contained file, figures embedded; md: Markdown with its PNG "
             "figures in a folder beside it.")] = "html",
    out_path: Annotated[Path | None, typer.Option(
        "--out", "-o", metavar="PATH",
        help="Where to write: a file, or a folder to hold report.html / report.md. "
             "Default: inside RESULTS.")] = None,
    base: Annotated[str | None, typer.Option(
        "--base", metavar="VARIANT",
        help="The variant the others are compared with on paired deals (default: "
             "second_edition when the run has it, else the run's first).")] = None,
    min_games: Annotated[int, typer.Option(
        "--min-games", min=1,
        help="Cells counting fewer games are greyed and never flagged.")] = 100,
    tiers: Annotated[str | None, typer.Option(
        "--tiers", metavar="T1,T2,…",
        help="Bot tiers from weakest to strongest for the skill split (default: ranked by the "
             "bots' win rates against each other, else random < heuristic < search).")] = None,
) -> None:
    """Write the balance report of a run: At a glance first (armies out of band, the cards that
    cause it, what each variant moved), then variants, paired changes, armies, tier stability,
    card value (lab value's table when RESULTS holds one), the opening-hand effect, the
    observational card metrics and dead abilities — per bot tier, every number with its 95%
    interval and sample size."""
    from lab.report import build_report
    from lab.sim.records import check_readable

    check_readable(results)  # a damaged chunk is named here, in one line
    order = [t.strip() for t in tiers.split(",") if t.strip()] if tiers else None
    page = build_report(results, fmt=fmt.strip().lower(), out=out_path, base=base,
                        min_games=min_games, tier_order=order)
    out.print(f"wrote {page}", soft_wrap=True)


# ----------------------------------------------------------------------------------- lab play

@command("play")
def play_command(
    army: Annotated[str, typer.Option(
        "--army", "-a", metavar="ARMY",
        help="Your army (seat A): a key (oda), a printed name (織田) or a deck file.")] = "oda",
    vs: Annotated[str | None, typer.Option(
        "--vs", metavar="ARMY",
        help="The bot's army (seat B); default: another army chosen by the seed.")] = None,
    bot: Annotated[str, typer.Option("--bot", metavar="BOT", help=(
        "The bot you play against: heuristic (default), search, random, or a heuristic "
        "persona (aggressive, defensive, balanced); KIND:KEY=VALUE,… sets parameters, e.g. "
        "search:simulations=200 or heuristic:persona=defensive,card=30."))] = "heuristic",
    rules: Annotated[str, typer.Option("--rules", "-r", metavar="PRESET",
                                       help=PRESET_HELP)] = DEFAULT_PRESET,
    toggles: Annotated[list[str] | None, typer.Option(
        "--set", "-s", metavar="KEY=VALUE",
        help="A rule toggle on top of the preset, e.g. --set walls=10 --set logistics=on "
             "(repeatable; `lab rules` lists the keys).")] = None,
    seed: Annotated[int | None, typer.Option(
        "--seed", min=0, metavar="N",
        help="Seed of the deal (and of the bot's own choices); kept for every match of the "
             "session. Default: a fresh random seed per match, recorded in the replay.")] = None,
    save_scenario: Annotated[Path | None, typer.Option(
        "--save-scenario", metavar="PATH",
        help="Also write the session's matches as a scenario file (position after set-up, "
             "every step, final state as expectations) that `lab scenario PATH` passes.")] = None,
    replay_dir: Annotated[Path, typer.Option(
        "--replay-dir", metavar="DIR",
        help="Where each finished or abandoned match is saved as a replay file (JSON), shown "
             "by `lab replay PATH`.")] = Path("results/replays"),
) -> None:
    """Play 大天下 in the terminal against a bot, then again with the same or changed settings.

    You play seat A. Each decision shows the board as you may see it, your legal actions
    numbered and in the scenario step grammar — type either (the seat may be left out), or
    help, g (graveyards), log, rules, info CARD, quit. The bot's moves and every automatic
    event are narrated one line each. After a match, Enter plays again and KEY=VALUE … changes
    toggles (walls=10 logistics=on) or army=, vs=, bot=, rules=, seed= first. Every match is
    saved as a replay file; quit, Ctrl-C and end of input save it and leave cleanly (exit code
    130 after Ctrl-C).
    """
    from lab.play import PlaySession, PlaySettings
    from lab.play.options import parse_assignments, parse_bot_option

    settings = PlaySettings(army=army, vs=vs or "", bot=parse_bot_option(bot), preset=rules,
                            overrides=tuple(parse_assignments(toggles).items()), seed=seed)
    code = PlaySession(settings, replay_dir=replay_dir, save_scenario=save_scenario,
                       console=out).run()
    if code:
        raise typer.Exit(code)


@command("ladder")
def ladder_command(
    bots: Annotated[list[str] | None, typer.Option("--bots", help="Bots to rate (repeat the option): random, heuristic, search, expert, a persona (tuned, aggressive, defensive, balanced), or a TOML inline table such as '{ kind = \"search\", simulations = 100 }'.")] = None,
    games: Annotated[int, typer.Option(help="Games per pair of bots, spread over all ordered army pairs with the seats exchanged: at least 162, rounded up to a multiple of 162.")] = 324,
    rules: Annotated[str, typer.Option("--rules", "-r", help="Rules preset.")] = DEFAULT_PRESET,
    seed: Annotated[int, typer.Option(help="Seed of the deals.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
) -> None:
    """Rate bots against each other: Bradley–Terry ratings with 95% intervals and head-to-head."""
    import json

    from rich.progress import Progress

    from lab.bots.ladder import DEFAULT_BOTS, check, games_per_pair, render, run_ladder

    specs = [_bot_arg(b) for b in (bots or DEFAULT_BOTS)]
    check(specs, games)
    pairs = len(specs) * (len(specs) - 1) // 2
    with Progress(console=err, transient=True, disable=as_json) as bar:
        task = bar.add_task("ladder games",
                            total=pairs * games_per_pair(games, len(load_armies())))
        result = run_ladder(specs, games=games, rules=RuleSet.preset(rules), seed=seed,
                            progress=lambda n: bar.advance(task, n))
    if as_json:
        print(json.dumps(result.as_json(), indent=2, ensure_ascii=False))
        return
    render(result, out)


_BOT_SHORTHANDS = {"aggressive": {"kind": "heuristic", "persona": "aggressive"},
                   "defensive": {"kind": "heuristic", "persona": "defensive"},
                   "balanced": {"kind": "heuristic", "persona": "balanced"}}


def _bot_arg(text: str):
    """A bot named on the command line: a kind, a persona, or a TOML inline table."""
    from lab.bots.match import parse_bot

    text = text.strip()
    if text.startswith("{"):
        try:
            spec = tomllib.loads(f"bot = {text}")["bot"]
        except tomllib.TOMLDecodeError as e:
            raise LabError(f"--bots {text!r}: not a TOML inline table ({e})") from None
    else:
        spec = _BOT_SHORTHANDS.get(text, text)
    return parse_bot(spec, source="--bots")


# ------------------------------------------------------------------------------------ lab swap

@command("swap")
def swap_command(
    config: Annotated[Path, typer.Argument(
        metavar="CONFIG", help="Experiment file (TOML), e.g. configs/default.toml.")],
    card: Annotated[str | None, typer.Option(
        "--card", metavar="CARD",
        help="The card to take out (printed name or id), e.g. 赤備え. Default: the config's "
             "[swap] card.")] = None,
    with_: Annotated[str | None, typer.Option(
        "--with", metavar="CARD",
        help="The card put in its place, copy for copy, e.g. 足軽7. Default: the config's "
             "[swap] with.")] = None,
    games: Annotated[int | None, typer.Option(
        "--games", "-n", metavar="N",
        help="Deals per cell instead of the file's `games` (default folder gets -gamesN).")
    ] = None,
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-j", metavar="N",
        help="Worker processes (default: every core). Records do not depend on it.")] = None,
    out_dir: Annotated[Path | None, typer.Option(
        "--out", "-o", metavar="DIR",
        help="Results folder holding both arms as the patches base and CARD→WITH (default "
             "results/NAME-swap-CARD-WITH, with --games …-gamesN).")] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Reuse the records already in --out: play only the chunks not yet "
                         "written (none when complete).")] = False,
    min_games: Annotated[int, typer.Option(
        "--min-games", min=1, help="Rows with fewer pairs are marked thin.")] = 100,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Card-swap test: the causal value of a card. Plays the config twice on the same deals —
    as written (base) and with every copy of --card replaced by --with in every army that holds
    it (alt) — and reports each affected army's win-rate change with a 95% paired interval.

    The swap is a card patch (docs/value.md): both arms are variants of one results folder
    (`lab report` reads it). The replacement takes the card's place in the deck list, so a deal
    shuffles both decks alike and only the swapped positions differ; seeds, first players and
    bots are the same.
    The swapped deck must stay legal (uniques, one general, ≤ 4 tactics and castles).
    Score: win 1, draw ½, loss 0; change = alt − base (negative: the card was worth
    something). Armies without the card keep their decks and are listed as unaffected. A
    `[swap]` table (card = "…", with = "…") in the config gives the defaults. See
    docs/stats.md, "Card swap".
    """
    import json

    from lab.sim import config as sim_config, swap

    table = swap.read_table(config) or {}
    exp = sim_config.load_experiment(config, games=games)
    card = card or table.get("card")
    with_ = with_ or table.get("with")
    if card is None:
        raise LabError("missing --card: name the card to take out (e.g. --card 赤備え --with "
                       "足軽7), or add a [swap] table to the config", source=str(config))
    if with_ is None:
        raise LabError(f"missing --with: name the card that replaces {card} copy for copy "
                       f"(e.g. --with 足軽7), or add with = \"…\" to the config's [swap] table",
                       source=str(config))
    plan = swap.plan(exp, card, with_)
    out_path = out_dir or swap.default_out(plan, games_option=games is not None)
    names = {a.key: a.name for a in exp.armies}
    err.print(f"{exp.name}: {plan.card.name} → {plan.replacement.name} in "
              f"{', '.join(f'{names[k]} (×{n})' for k, n in plan.copies.items())}; "
              f"2 arms × {exp.total_games:,} games → {out_path}", soft_wrap=True)
    swap.run(plan, out_path, jobs=jobs, resume=resume, console=None if as_json else err)
    rows = swap.effects(plan, out_path, min_games=min_games)
    armies = rows[rows["kind"] == "army"]
    if as_json:
        def clean(r):
            return {k: (None if isinstance(v, float) and v != v else
                        v.item() if hasattr(v, "item") else v) for k, v in r.items()}

        doc = {"config": str(config), "card": plan.card.name, "with": plan.replacement.name,
               "records": str(out_path), "patch": plan.patch.name,
               "unaffected": list(plan.unaffected), "armies": []}
        for r in armies.to_dict("records"):
            sub = rows[(rows["army"] == r["army"]) & (rows["kind"] != "army")]
            doc["armies"].append({**clean(r), "name": names.get(r["army"], r["army"]),
                                  "copies": plan.copies[r["army"]],
                                  "reading": swap.reading(plan, r, names),
                                  "rows": [clean(x) for x in sub.to_dict("records")]})
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return
    pct = lambda x: f"{100 * x:.1f}%"  # noqa: E731
    pts = lambda x: f"{100 * x:+.1f}".replace("-", "−")  # noqa: E731
    for r in armies.to_dict("records"):
        army = r["army"]
        t = Table(title=f"{names.get(army, army)} ({army}): {plan.card.name} ×"
                        f"{plan.copies[army]} → {plan.replacement.name}",
                  caption="win rate (draw ½) on paired deals; change in points, 95% paired "
                          "interval; dim: thin")
        for col in ("", "pairs", "base", "swapped", "change", "interval"):
            t.add_column(col, justify="left" if not col else "right", no_wrap=bool(col))
        sub = rows[rows["army"] == army]
        for x in sub.to_dict("records"):
            label = {"army": "all opponents", "matchup": f"vs {names.get(x['opponent'], x['opponent'])}"
                     }.get(x["kind"], x["item"])
            style = "dim italic" if x["thin"] else ("bold" if x["kind"] == "army" else None)
            t.add_row(label, f"{int(x['pairs']):,}", pct(x["base"]), pct(x["other"]),
                      pts(x["change"]), f"[{pts(x['change_lo'])}, {pts(x['change_hi'])}]",
                      style=style)
        out.print(t)
        out.print(swap.reading(plan, r, names), soft_wrap=True)
    if plan.unaffected:
        out.print(f"unaffected (no {plan.card.name} in the deck; decks unchanged): "
                  f"{', '.join(names[k] for k in plan.unaffected)}", soft_wrap=True)
    missing = [names[k] for k in plan.affected if k not in set(armies["army"])]
    if missing:
        out.print(f"not compared (mirror games only): {', '.join(missing)}", soft_wrap=True)
    out.print(f"records: {out_path} (patches base and {plan.patch.name})", soft_wrap=True)


# ----------------------------------------------------------------------------------- lab value

@command("value")
def value_command(
    config: Annotated[Path, typer.Argument(
        metavar="CONFIG", help="Experiment file (TOML), e.g. configs/default.toml.")],
    cards: Annotated[list[str] | None, typer.Option(
        "--cards", metavar="CARD[,CARD…]",
        help="Only these cards (printed names or ids; repeat or separate by commas). Default: "
             "every card of every army.")] = None,
    tier: Annotated[list[str] | None, typer.Option(
        "--tier", metavar="TIER",
        help="Only this bot tier (its label, e.g. heuristic-vs-heuristic, or a bot playing "
             "both seats, e.g. heuristic; repeatable). Default: every tier of the config.")
    ] = None,
    games: Annotated[int | None, typer.Option(
        "--games", "-n", metavar="N",
        help="Deals per cell instead of the file's `games` (default folder: "
             "results/NAME-gamesN/value).")] = None,
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-j", metavar="N",
        help="Worker processes (default: every core). Results do not depend on it.")] = None,
    out_dir: Annotated[Path | None, typer.Option(
        "--out", "-o", metavar="DIR",
        help="Value folder: DIR/value.parquet and the run's records in DIR/records (default "
             "results/NAME/value, where `lab report results/NAME` finds it).")] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Continue an interrupted value run in --out: play only the chunks "
                         "not yet written.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON.")] = False,
) -> None:
    """Card value: what each card (and its ability) is worth to its army, causally.

    For every card type of every army: *ability_off* (the card keeps its strength, loses its
    abilities) and *above_vanilla* (every copy replaced by a vanilla 足軽 of the nearest strength;
    ∞ → 足軽10; tactics and castles → the army's weakest 足軽), each played on the same deals and
    seat orders as the unchanged decks against the config's other armies. Each row: Δ army win
    rate (as is − contrast; positive: the card helps), 95% interval clustered by deal, games, and
    a Benjamini–Hochberg q across cards. See docs/value.md.
    """
    import json

    from lab.design import value
    from lab.sim import config as sim_config

    exp = sim_config.load_experiment(config, games=games)
    names = [n.strip() for c in cards or () for n in c.split(",") if n.strip()] or None
    plan = value.plan(exp, cards=names, tiers=tier)
    out_path = out_dir or value.default_out(exp, games_option=games is not None)
    run_exp = plan.exp
    err.print(f"{exp.name}: {len(plan.arms)} arm(s) for {plan.rows} value row(s) × "
              f"{len(run_exp.matchups)} matchup(s) × {len(run_exp.tiers)} tier(s) = "
              f"{run_exp.total_games:,} games → {out_path}", soft_wrap=True)
    if plan.skipped:
        warn(f"not valued (mirror games only): {', '.join(plan.skipped)}")
    result = value.run(plan, out_path, jobs=jobs, resume=resume, console=err)
    err.print(f"played {result.played:,} games in {result.play_seconds:.1f} s "
              f"({result.games_per_s:,.0f} games/s); {result.seconds:.1f} s in all"
              if result.chunks_played else "every chunk was already written; nothing to play")
    table = value.compute(plan, out_path)
    if as_json:
        rows = json.loads(table.to_json(orient="records", force_ascii=False))
        print(json.dumps(rows, ensure_ascii=False, indent=1))
        return
    for t in value.tables(table):
        out.print(t)
    prec = value.precision(table)
    out.print(f"95% half-width: at most {prec['max_half_width']:.2f} points (median "
              f"{prec['median_half_width']:.2f}) over {prec['rows']} rows; table: "
              f"{out_path}/value.parquet", soft_wrap=True)


if __name__ == "__main__":
    main()
