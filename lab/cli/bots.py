"""``lab ladder`` and ``lab bench``: how strong the bots are and how fast the engine is.

Parses the options and hands them to the game named by --game (``lab.games``), which plays,
times and prints: 大天下's ladder is played, rated and drawn by ``lab.games.daitenka.bots.ladder``, its timings
taken by ``lab.games.daitenka.bench``.
"""

from __future__ import annotations

from typing import Annotated

import typer

from lab.cli.common import GAME, command, err, out


# ---------------------------------------------------------------------------------- lab ladder


@command("ladder")
def ladder_command(
    ctx: typer.Context,
    bots: Annotated[
        list[str] | None,
        typer.Option("--bots", help=f"Bots to rate (repeat the option), each {GAME.BOT_FORMS}."),
    ] = None,
    games: Annotated[
        int,
        typer.Option(
            help="Games per pair of bots, spread over all ordered army pairs with the seats exchanged: rounded up to a multiple of 162 (with a note)."
        ),
    ] = 324,
    rules: Annotated[
        str, typer.Option("--rules", "-r", help="Rules preset.")
    ] = GAME.DEFAULT_PRESET,
    seed: Annotated[int, typer.Option(help="Seed of the deals.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
    game: Annotated[
        str,
        typer.Option(
            "--game",
            "-g",
            metavar="GAME",
            help="daitenka (大天下, the default) or rumble_nation (each bot against copies of the "
            "other on --games paired deals; --rules base_2p … base_4p).",
        ),
    ] = "daitenka",
) -> None:
    """Rate bots against each other: Bradley–Terry ratings with 95% intervals and head-to-head."""
    from lab.games import get
    from lab.games.protocol import LadderOptions

    # the default shown is 大天下's; left out, every game plays its own default preset
    given = ctx.get_parameter_source("rules")
    preset = None if given is None or given.name == "DEFAULT" else rules
    get(game, key="--game").ladder(
        LadderOptions(
            bots=tuple(bots or ()), games=games, rules=preset, seed=seed, as_json=as_json
        ),
        out,
        err,
    )


# ----------------------------------------------------------------------------------- lab bench


@command("bench")
def bench_command(
    games: Annotated[int, typer.Option(min=1, help="Games per preset and run.")] = 20_000,
    runs: Annotated[int, typer.Option(min=1, help="Runs per figure (the median is shown).")] = 3,
    compile_runs: Annotated[
        int,
        typer.Option(
            min=0,
            help="Fresh processes timed compiling the engine with an empty cache (minutes "
            "each; their temporary caches are removed; 0 = skip).",
        ),
    ] = 1,
    start_runs: Annotated[
        int,
        typer.Option(min=0, help="Fresh processes timed loading the compiled engine (0 = skip)."),
    ] = 3,
    preset: Annotated[
        list[str] | None, typer.Option("--preset", help="Only these presets.")
    ] = None,
    bot_games: Annotated[
        int,
        typer.Option(
            min=0,
            help="Games per run of each of the heuristic, tuned and strong bots against "
            "itself (second edition, one core; 0 = skip).",
        ),
    ] = 4_000,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
    game: Annotated[
        str,
        typer.Option(
            "--game",
            "-g",
            metavar="GAME",
            help="daitenka (大天下, the default) or rumble_nation (random bots per preset; no "
            "compile timings).",
        ),
    ] = "daitenka",
) -> None:
    """Engine speed: random-vs-random games on one core, all nine armies, per preset; the
    heuristic, tuned and strong bots' own games/s (大天下); then the cold compile and cached start
    of a fresh process. Each step shows what runs and for how long."""
    from lab.games import get
    from lab.games.protocol import BenchOptions

    get(game, key="--game").bench(
        BenchOptions(
            games=games,
            runs=runs,
            compile_runs=compile_runs,
            start_runs=start_runs,
            presets=tuple(preset or ()),
            as_json=as_json,
            bot_games=bot_games,
        ),
        out,
        err,
    )
