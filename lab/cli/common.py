"""What every ``lab`` command module shares: the typer ``app``, the two consoles, the error
contract and the options several commands take.

Owns ``command`` — the decorator that registers a command on ``app`` and turns a ``LabError``
raised inside it into one line on stderr and exit code 2 (anything else is a bug and keeps its
traceback) — ``warn`` for one-line warnings, and the shared option texts (the rules preset). It
holds no command of its own and must not load cards, rules or records.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.text import Text

from lab.errors import LabError
from lab.games import get

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

# the commands without --game speak of the default game (大天下): its presets, bots, languages
GAME = get(None)
PRESET_HELP = "Rules preset: " + ", ".join(GAME.PRESETS) + f" (default {GAME.DEFAULT_PRESET})."
CARDS_HELP = (
    "An extra card file (TOML, the format of lab/games/daitenka/cards/cards.toml: cards = [ … ] and "
    "[ability.ID] tables) added to the package's cards; deck files may use its cards. "
    "Repeatable. Checked like the package's cards. See docs/cards.md."
)
# --cards FILE on every command that loads the card pool (also spelled --extra-cards)
CardFiles = Annotated[
    list[Path] | None, typer.Option("--cards", "--extra-cards", metavar="FILE", help=CARDS_HELP)
]


LANG_HELP = (
    "Language of the game's narration: ja (Japanese, the log's own) or en (English); "
    "card and ability names stay as printed."
)
Lang = Annotated[str, typer.Option("--lang", metavar="ja|en", help=LANG_HELP)]


def check_lang(lang: str) -> str:
    LANGS = GAME.LANGS
    if lang not in LANGS:
        raise LabError(f"--lang {lang} is not allowed; allowed values: {', '.join(LANGS)}")
    return lang


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


def interrupted() -> NoReturn:
    err.print(Text("error: ", style="bold red") + Text("interrupted"))
    raise SystemExit(130)


def pool_of(files: list[Path] | None):
    """The default game's cards plus the extra card files given with --cards."""
    return GAME.card_pool(extra=tuple(files or ()))
