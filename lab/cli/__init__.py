"""The ``lab`` command line (typer): parse arguments, call the layer that owns the work, print.

Owns the assembled typer ``app`` (built in ``lab.cli.common``, its commands in one module per
group: ``cards`` — cards, decks, rules; ``play`` — match, scenario, replay, play; ``run`` — run,
report, swap, value, balance; ``bots`` — ladder, bench; ``serve`` — the web app), the root help, and the console-script
entry ``main``: a ``LabError`` anywhere becomes one line on stderr and exit code 2, never a traceback
(anything else is a bug and keeps its traceback); a bad option or argument is one line too, and
Ctrl-C exits 130. No command holds rules, card data or statistics of its own or simulates: each
loads what it names through the layer that owns it and only presents the result. To add a
command, write a small function decorated with ``@command("name")`` (``lab.cli.common``, which
wires in the error handling) in its group's module and keep its presentation helpers beside it.
"""

from __future__ import annotations

from typing import Annotated

import typer

from lab import __version__
from lab.cli.common import app, err, error_exit, interrupted, out
from lab.errors import LabError

# the command modules register their commands on ``app`` when imported
from lab.cli import bots, cards, play, run, serve  # noqa: E402,F401  isort: skip

# the order `lab --help` lists the commands in (any other command follows, as registered)
ORDER = (
    "cards",
    "decks",
    "rules",
    "match",
    "scenario",
    "bench",
    "run",
    "replay",
    "report",
    "play",
    "ladder",
    "swap",
    "value",
    "balance",
    "serve",
)
app.registered_commands.sort(key=lambda c: ORDER.index(c.name) if c.name in ORDER else len(ORDER))


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


def _version(value: bool) -> None:
    if value:
        out.print(f"daitenka-lab {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Daitenka Lab — a rules-variant simulation lab for the card game 大天下.

    Cards, armies and rule sets are data (TOML card, deck and rule files). A bad input file or
    value is reported as one line naming the file, the entry and the fix, with exit code 2.
    """
