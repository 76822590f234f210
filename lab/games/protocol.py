"""The typed protocol every registered game implements (``lab.games``), in three parts:

- ``GameEntry`` — what the platform asks of a game: its rule sets and seats, a game from seed
  words, its experiment (load, plan, warm-up, chunks, record schemas), its summary and report,
  and the single-game commands (``lab match``, ``lab ladder``, ``lab bench``, ``lab replay``,
  ``lab play``, ``lab scenario``) with what each prints;
- ``GameState`` — one game in progress, as ``new_game`` returns it;
- ``Experiment`` — an experiment config resolved for the runner and the manifest;
- ``PageMatch`` — a match on ``lab serve``'s 試験場 page, as the entry's ``page_match`` sets it up.

A game's entry is a class with every member written out (no attribute fallthrough); the
conformance suite (tests/test_game_conformance.py) runs over every registered game and checks
both the members and what they do. docs/games.md says how to add a game.

The command members take the command-line options as the options dataclasses below and print
to the consoles they are given, so the CLI (``lab.cli``) parses and calls without knowing which
game it is talking to; a game refuses, in one ``LabError`` line, an option it has no use for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


# ------------------------------------------------------------------------ command options
@dataclass(frozen=True)
class MatchOptions:
    """``lab match``: one game between random bots."""

    army_a: str | None = None
    army_b: str | None = None
    rules: str | None = None  # a preset; None: the game's default
    config: Path | None = None  # a rules TOML on top of the preset
    seed: int = 0
    log: bool = True
    card_files: tuple[Path, ...] = ()
    lang: str = "ja"


@dataclass(frozen=True)
class LadderOptions:
    """``lab ladder``: bots rated against each other."""

    bots: tuple[str, ...] = ()  # empty: the game's own default bots
    games: int = 324
    rules: str | None = None  # None: the game's default preset
    seed: int = 0
    as_json: bool = False


@dataclass(frozen=True)
class BenchOptions:
    """``lab bench``: engine speed."""

    games: int = 20_000
    runs: int = 3
    compile_runs: int = 1
    start_runs: int = 3
    presets: tuple[str, ...] = ()  # empty: every preset
    as_json: bool = False
    bot_games: int = (
        0  # games per run of each bot against itself (0: skip; games without bots ignore it)
    )


@dataclass(frozen=True)
class ReplayOptions:
    """``lab replay``: a recorded game shown and checked."""

    log: bool = True
    lang: str = "ja"
    save_scenario: Path | None = None


@dataclass(frozen=True)
class PlayOptions:
    """``lab play``: a person against bots in the terminal."""

    army: str = "oda"
    vs: str | None = None
    bot: str = "heuristic"
    rules: str | None = None
    toggles: Mapping[str, Any] | None = None
    players: int | None = None
    seat: str = "P1"  # the seat a person takes where the game lets them choose
    seed: int | None = None
    save_scenario: Path | None = None
    replay_dir: Path = Path("results/replays")
    card_files: tuple[Path, ...] = ()
    lang: str | None = None  # None: the game's default language


@dataclass(frozen=True)
class CardsOptions:
    """``lab cards``: the card pool."""

    kind: str | None = None
    army: str | None = None  # only this army's cards, with their copies
    card_files: tuple[Path, ...] = ()


@dataclass(frozen=True)
class DecksOptions:
    """``lab decks``: the armies, one army, or a deck file checked."""

    name: str | None = None
    check: Path | None = None
    card_files: tuple[Path, ...] = ()


@dataclass(frozen=True)
class RulesOptions:
    """``lab rules``: a resolved rule set."""

    preset: str | None = None  # None: the game's default (or the one the config names)
    config: Path | None = None


# ------------------------------------------------------------------------ the game object
@runtime_checkable
class Action(Protocol):
    """A legal decision; ``text`` is the step as scenarios and replays write it."""

    @property
    def text(self) -> str: ...


@runtime_checkable
class GameState(Protocol):
    """One game: set up from seed words by ``GameEntry.new_game``, stepped to its end."""

    @property
    def is_over(self) -> bool: ...

    @property
    def to_move(self) -> str | None:
        """The seat to decide (meaningful while the game runs)."""

    @property
    def winner(self) -> str | None:
        """A seat, "draw", or None while the game runs."""

    def legal_actions(self) -> Sequence[Action]:
        """The distinct legal decisions of the seat to move ([] once over); chance events
        that are due (a deal, a roll) happen first, from the game's own stream."""

    def step(self, action: Action | str | int) -> None:
        """Apply a legal action, its text, or an index into ``legal_actions()``."""

    def observation(self, seat: str) -> dict:
        """Everything ``seat`` may see, and nothing else (a nested dict of plain values)."""

    def result(self) -> dict | None:
        """The end of the game (at least ``winner``) once over; None while it runs."""

    def summary(self) -> str:
        """One line: who won and how (or who is to move)."""

    def log_lines(self) -> list[str]:
        """The game so far, one readable line per event."""

    def redeal_hidden(self, seat: str, rng) -> GameState:
        """A copy with everything ``seat`` cannot see drawn again at random (numpy ``rng``),
        consistent with what it sees: its observation must not change."""


# ------------------------------------------------------------------------ the experiment
@runtime_checkable
class Experiment(Protocol):
    """An experiment file resolved: what the runner plans and the manifest records."""

    game: str
    name: str
    source: str
    seed: int
    games: int  # deals per cell
    chunk_size: int
    variants: Sequence[Any]  # each with an ``id``
    tiers: Sequence[Any]  # each with a ``label``

    @property
    def n_cells(self) -> int: ...

    @property
    def total_games(self) -> int: ...

    def resolved(self) -> dict:
        """The full resolved config, as manifest.json keeps it."""

    def fingerprint(self) -> str:
        """What must match for a results folder to be resumed with this config."""


# ------------------------------------------------------------------------ the page
@runtime_checkable
class PageMatch(Protocol):
    """A match of ``lab serve``'s 試験場 page: the person's seat against bots, stepped by clicks.
    ``setup`` is what the page's form chose (``lab.serve.play.Setup``)."""

    setup: Any

    @property
    def over(self) -> bool: ...

    @property
    def steps(self) -> int:
        """Decisions taken so far (a click for an older step is refused)."""

    def act(self, k: int) -> None:
        """The person takes legal action ``k`` (0-based); bots move until it is theirs again."""

    def view(self) -> dict:
        """What the person's seat may see, and nothing else: the page and its JSON are built
        from it alone (``game`` names the entry; ``legal`` lists ``i`` and ``text``)."""

    def replay_text(self) -> tuple[str, str]:
        """(file name, text) of the finished match's replay or log; refused while it runs."""

    def scenario_text(self, folder: Path) -> tuple[str, str, Path]:
        """(file name, text, path written under ``folder``) of the finished match as a scenario
        file; a game without one refuses in one ``LabError`` line."""


# ------------------------------------------------------------------------ card design
ABILITY_OFF, ABOVE_VANILLA = "ability_off", "above_vanilla"  # lab value's two contrasts


@dataclass(frozen=True)
class ValueArm:
    """One card patch of a ``lab value`` run and the value rows it answers: ``contrasts`` are
    (contrast, printed name of the replacement or "")."""

    patch: Any
    army: str
    card: Any  # with ``id`` and ``name``
    copies: int
    contrasts: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class CardSwap:
    """``lab swap``'s patch: ``card`` replaced by ``replacement`` copy for copy in the armies
    of ``copies`` (army key → copies); ``army``: only that army's copies (``--army``)."""

    card: Any
    replacement: Any
    patch: Any  # with ``name``
    copies: dict[str, int]
    unaffected: tuple[str, ...]  # armies of the experiment whose decks are unchanged
    army: str | None = None
    kept: tuple[str, ...] = ()  # with ``army``: other armies that hold the card and keep it


@runtime_checkable
class CardDesign(Protocol):
    """What the design questions (``lab value``, ``lab swap``, ``lab balance``, in
    ``lab.design``) ask of a game whose cards can be edited: its card patches, applied to its
    experiments (an experiment has ``patches``, ``armies`` with ``key``, ``name`` and
    ``deck()``, ``matchups``, ``tiers`` and ``pool()``). The design layer plans, runs and reads
    the runs; everything that knows a card is here."""

    BASE_PATCH: Any  # the unpatched cards; its ``name`` is the records' ``patch`` value

    def with_patches(
        self, exp: Experiment, patches, patched_matchups: str | None = None
    ) -> Experiment:
        """``exp`` playing ``patches`` (the first the base): "affected" plays a patched
        variant only on the matchups its patch changes (None: as the experiment says)."""

    def patch(self, name: str, edits) -> Any:
        """A patch of ``edits`` (each a move's ``edit``) called ``name``."""

    def value_arms(self, exp: Experiment, cards: list[str] | None) -> dict[str, list[ValueArm]]:
        """Army key → the arms of its cards (``cards``: only these printed names or ids; an
        unknown card or one no army holds is one ``LabError`` line)."""

    def swap(self, exp: Experiment, card: str, replacement: str, army: str | None) -> CardSwap:
        """``card`` for ``replacement`` in the armies holding it (or in ``army`` only); one
        ``LabError`` line for an unknown card, an army not holding it, …"""

    def edit_catalogue(
        self,
        exp: Experiment,
        keep=None,
        cards: list[str] | None = None,
        deck_lists: bool = False,
        abilities: bool = True,
    ) -> tuple:
        """Every single card edit of ``exp``'s armies (each with ``index``, ``key``, ``text``,
        ``edit``, ``armies``, ``slot`` — what it changes; moves of different slots never
        conflict — and ``conflicts(other)``); ``keep``: only these (army, card id) pairs;
        ``cards``: only these names (one ``LabError`` line for one no army holds);
        ``deck_lists``: with edits of the decks' lists too (a game without them ignores it);
        ``abilities``: with edits of the cards' abilities (without: numbers only)."""

    def patch_toml(self, moves, name: str, description: str, exp: Experiment) -> str:
        """The ``[[patch]]`` table of a set of edits, ready to paste into a config."""

    def bot_tier(self, spec, source: str) -> Any:
        """The tier of one bot playing both seats (``spec``: as a config writes a bot)."""


# ------------------------------------------------------------------------ the entry
@runtime_checkable
class GameEntry(Protocol):
    """A registered game, as the runner, records, statistics, report and commands reach it."""

    name: str  # the key a config writes: game = "…"
    display: str  # how pages and lines name it
    RECORD_KINDS: tuple[str, ...]  # the record tables a chunk writes (folders of a run)

    # -- rules and games
    @property
    def PRESETS(self) -> Mapping[str, Any]: ...

    @property
    def DEFAULT_PRESET(self) -> str: ...

    def seats(self, rules=None) -> tuple[str, ...]:
        """The seats a rule set plays, in order."""

    def rules(
        self, preset: str | None = None, overrides: dict | None = None, source: str | None = None
    ):
        """A preset with toggles on top (an unknown one is one ``LabError`` line); the rule
        set has ``id`` and ``as_dict()``."""

    def new_game(self, rules, seed_words, first_seat=None) -> GameState:
        """A game set up from seed words (an int or 4 words), the first seat optional."""

    # -- experiments
    def load_experiment(
        self, data: dict, source: str, games: int | None = None, cards: Iterable = ()
    ) -> Experiment: ...

    def smoke_config(self, games: int = 4) -> dict:
        """A small experiment file's data — two variants, random bots, ``games`` deals per
        cell — that plays in seconds: what the conformance suite runs and reports."""

    def describe(self, exp: Experiment) -> str:
        """One line: what the experiment plays (cells × deals = games)."""

    def plan(self, exp: Experiment) -> list:
        """The runner's chunks (each with ``chunk_ids``, ``outputs()``, ``size``)."""

    def warm(self, job) -> None:
        """Compile or load the kernels ``job`` needs and play one game."""

    def play_chunk(self, job, out) -> Any:
        """Play one chunk and write its record files (picklable; ``lab.sim.receipt.Receipt``)."""

    def schema(self, kind: str):
        """The Arrow schema of the record table ``kind``."""

    def record_columns(self, rules=None) -> list[tuple[str, str, str]]:
        """(name, Arrow type, meaning) of the game's own columns."""

    def check_experiment(self, exp: Experiment) -> list[str]:
        """Warnings worth a line before a run starts (none: [])."""

    def run_warnings(self, result) -> list[str]:
        """Warnings about a finished run (``lab.sim.runner.RunResult``)."""

    def summary_tables(self, out, exp: Experiment | None = None) -> list:
        """The rich tables ``lab run`` prints at the end."""

    def build_report(self, results, fmt: str = "html", out=None, **options) -> Path: ...

    # -- what statistics and reports name (lab.stats, lab.report)
    def armies(self) -> list[tuple[str, str]]:
        """(key, printed name) of the game's built-in armies in their canonical order (tables
        and the play page list them so); [] for a game without armies."""

    def card_pool(self, extra: Iterable = ()) -> Any | None:
        """The game's built-in card pool plus the card files ``extra`` (``--cards``) — each
        card with ``name``, ``id`` and ``abilities`` (each with ``id``, ``name``, ``rows``),
        ``pool.get(name)``, ``name in pool`` — from which card statistics name cards and
        abilities and the commands take their cards; None for a game without cards."""

    @property
    def LANGS(self) -> tuple[str, ...]:
        """The languages its logs and narration come in (``--lang``), the default first."""

    @property
    def BOT_FORMS(self) -> str:
        """How one of its bots is written on the command line (``--bot``, ``--bots``' help)."""

    def bot_short(self, spec) -> str:
        """The short name (a ``--tier`` value) of a bot as a resolved config writes it; a
        ``LabError`` line for one this version cannot read."""

    def variant_ids(self, config: dict) -> list[str]:
        """The variant ids of a resolved config (manifest.json's ``config``) in its order, as
        the records' ``variant`` column writes them."""

    @property
    def EDITS_CARDS(self) -> bool:
        """True when the game's experiments can be re-run with card edits (``lab value``,
        ``lab swap``, ``lab balance``)."""

    def card_design(self) -> CardDesign:
        """Its card edits, for ``lab value``, ``lab swap`` and ``lab balance`` (a game whose
        ``EDITS_CARDS`` is False refuses in one ``LabError`` line)."""

    # -- single games (the commands)
    def prepare_scenarios(self, path, log: bool = False, pool=None) -> list[Callable]:
        """The scenarios of a file set up, each a callable that plays one and returns its
        outcome (``passed``, ``message``, ``scenario`` with ``name`` and ``file_name``,
        ``game``); a malformed file raises its ``LabError`` here."""

    def match(self, options: MatchOptions, console) -> None: ...

    def ladder(self, options: LadderOptions, console, progress_console) -> None: ...

    def bench(self, options: BenchOptions, console, progress_console) -> None: ...

    def replay(
        self, results: Path, game_id: int, options: ReplayOptions, console, err_console
    ) -> int:
        """Show a recorded game of a results folder; the exit code (1: not reproduced)."""

    def owns_replay_file(self, path: Path) -> bool:
        """True for a `lab play` replay file this game wrote (read without raising)."""

    def show_replay_file(self, path: Path, options: ReplayOptions, console) -> int: ...

    def play(self, options: PlayOptions, console) -> int:
        """A terminal session against bots; the exit code."""

    def cards(self, options: CardsOptions, console) -> None:
        """``lab cards``: the card pool (a game without cards refuses in one line)."""

    def decks(self, options: DecksOptions, console, warn: Callable[[str], None]) -> None:
        """``lab decks``: the armies with any balance warnings (``warn``), one army, or a deck
        file checked (a game without decks refuses in one line)."""

    def show_rules(self, options: RulesOptions, console) -> None:
        """``lab rules``: a resolved rule set, each toggle against its preset, and its id."""

    @property
    def HELP(self) -> Mapping[str, str]:
        """The game's own words in the commands' help: ``kind`` (``lab cards --kind``) and
        ``deck_check`` (``lab decks --check``)."""

    # -- the page (lab serve)
    @property
    def COMPARES_ARMIES(self) -> bool:
        """True when its records hold armies that ``lab serve``'s side by side compares."""

    @property
    def PAGE_TEMPLATES(self) -> Path:
        """The folder of the game's parts of the play page (Jinja2): ``form.html`` (the form's
        own fields), ``after_form.html``, ``board.html`` and ``result.html`` (of a ``view``)."""

    def page_rule_fields(self, preset: str, overrides: dict | None = None) -> list[dict]:
        """Every toggle under ``preset`` + ``overrides`` as the page's form offers it: ``key``,
        shown ``value``, the ``preset``'s value, ``allowed`` values (a list, or (lowest,
        highest)), ``kind`` (choice, range, text) and ``description``."""

    def page_settings(
        self,
        form: Mapping[str, str],
        preset: str,
        overrides: dict,
        bot: str,
        seed: int | None,
        uploaded: Callable[[str], Path],
    ) -> tuple[str, Any]:
        """(the person's seat, the match settings) from the page's form, checked (a bad value is
        one ``LabError`` line); ``uploaded(name)`` is the path of a file uploaded for play."""

    def page_upload(self, text: str, name: str) -> dict[str, str]:
        """Check a file uploaded for play (``name``, its ``text``) — one ``LabError`` line if
        the game cannot play it — and return the form fields that choose it once saved; a game
        that plays no uploaded file refuses every one."""

    def page_match(self, setup, replay_dir: Path) -> PageMatch:
        """A match of the page set up from ``setup`` (``settings`` from ``page_settings``);
        a replay it saves goes under ``replay_dir``."""


def members(protocol: type) -> tuple[str, ...]:
    """The names a protocol asks for (its annotated attributes, properties and methods)."""
    names = set(getattr(protocol, "__annotations__", {}))
    names |= {
        k
        for k, v in vars(protocol).items()
        if not k.startswith("_") and (callable(v) or isinstance(v, property))
    }
    return tuple(sorted(names))


__all__ = [
    "Action",
    "ABILITY_OFF",
    "ABOVE_VANILLA",
    "BenchOptions",
    "CardDesign",
    "CardSwap",
    "Experiment",
    "GameEntry",
    "GameState",
    "LadderOptions",
    "MatchOptions",
    "PageMatch",
    "PlayOptions",
    "ReplayOptions",
    "ValueArm",
    "members",
]
