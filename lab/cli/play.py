"""``lab match``, ``lab scenario``, ``lab replay`` and ``lab play``: single games a person
watches, checks or plays.

Owns the scenario pass/FAIL lines. Every other command hands its options to the game named by
--game, a scenario file or a results folder (``lab.games``), which plays and shows its games
(``lab.games.protocol``); this module holds no game logic of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from lab.cli.common import (
    GAME,
    PRESET_HELP,
    CardFiles,
    Lang,
    check_lang,
    command,
    err,
    out,
    pool_of,
)
from lab.errors import LabError


# ----------------------------------------------------------------------------------- lab match


@command("match")
def match_command(
    army_a: Annotated[
        str | None, typer.Argument(help="Army of seat A: key (oda), name (織田) or deck file.")
    ] = None,
    army_b: Annotated[str | None, typer.Argument(help="Army of seat B.")] = None,
    rules: Annotated[str | None, typer.Option("--rules", "-r", help="Rules preset.")] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="Rules TOML on top of the preset.")
    ] = None,
    seed: Annotated[
        int,
        typer.Option(min=0, help="Seed of the deal and of the bots' choices (a whole number ≥ 0)."),
    ] = 0,
    log: Annotated[
        bool, typer.Option("--log/--no-log", help="Print every event of the game.")
    ] = True,
    card_files: CardFiles = None,
    game_name: Annotated[
        str,
        typer.Option(
            "--game",
            "-g",
            metavar="GAME",
            help="The game: daitenka (大天下, the default; two armies) or rumble_nation (no "
            "armies; --rules base_3p for three players).",
        ),
    ] = "daitenka",
    lang: Lang = "ja",
) -> None:
    """Play one game between random bots and print its log and result."""
    from lab.games import get
    from lab.games.protocol import MatchOptions

    check_lang(lang)
    get(game_name, key="--game").match(
        MatchOptions(
            army_a=army_a,
            army_b=army_b,
            rules=rules,
            config=config,
            seed=seed,
            log=log,
            card_files=tuple(card_files or ()),
            lang=lang,
        ),
        out,
    )


# -------------------------------------------------------------------------------- lab scenario


@command("scenario")
def scenario_command(
    paths: Annotated[list[Path], typer.Argument(help="Scenario files or folders of them.")],
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Print each failing game's log.")
    ] = False,
    card_files: CardFiles = None,
) -> None:
    """Run rules scenarios (scenarios.md): one line per scenario, exit 1 if any fails."""
    from lab.games import each_outcome

    failed = total = 0
    for o in each_outcome(paths, log=verbose, pool=pool_of(card_files)):
        total += 1
        s = o.scenario
        if o.passed:
            out.print(Text("pass ", style="green") + Text(f"{s.name}  ({s.file_name})"))
            continue
        failed += 1
        out.print(Text("FAIL ", style="bold red") + Text(f"{s.name}  ({s.file_name}): {o.message}"))
        if verbose and o.game is not None:
            for line in o.game.log_lines():
                out.print("     " + line)
    out.print(f"{total - failed} passed, {failed} failed")
    if failed:
        raise typer.Exit(1)


# ---------------------------------------------------------------------------------- lab replay


# a negative GAME_ID reaches the command (and its one-line error) instead of "No such option"
@command("replay", context_settings={"ignore_unknown_options": True})
def replay_command(
    results: Annotated[
        Path,
        typer.Argument(
            metavar="RESULTS_DIR|REPLAY_FILE",
            help="A results folder written by `lab run`, or a replay file (.json) written by `lab play` (大天下 or Rumble Nation).",
        ),
    ],
    game_id: Annotated[
        int | None,
        typer.Argument(
            metavar="[GAME_ID]",
            help="The game's id (column game_id of the games records); not with a replay file.",
        ),
    ] = None,
    log: Annotated[bool, typer.Option("--log/--no-log", help="Print every event.")] = True,
    save_scenario: Annotated[
        Path | None,
        typer.Option(
            "--save-scenario",
            metavar="PATH",
            help="With a `lab play` replay file: also write it as a scenario file.",
        ),
    ] = None,
    lang: Lang = "ja",
) -> None:
    """Replay a recorded game (or a `lab play` match) with its readable log, and check that it
    reproduces the record.

    Exit code 1 if the replay does not reproduce the recorded result.
    """
    from lab.games import GAMES, DEFAULT, of_results
    from lab.games.protocol import ReplayOptions

    check_lang(lang)
    options = ReplayOptions(log=log, lang=lang, save_scenario=save_scenario)
    if results.is_file():
        if game_id is not None:
            raise LabError(f"{results} is a replay file written by `lab play`; give no GAME_ID")
        # the game that wrote it; a file none claims gets the default game's one-line error
        game = next((g for g in GAMES.values() if g.owns_replay_file(results)), GAMES[DEFAULT])
        code = game.show_replay_file(results, options, out)
        if code:
            raise typer.Exit(code)
        return
    if game_id is None:
        raise LabError(
            f"give the GAME_ID of a game in {results}, or the path of a replay file "
            "written by `lab play`"
        )
    if game_id < 0:
        raise LabError(
            f"GAME_ID {game_id} is not allowed; game ids are whole numbers ≥ 0 "
            "(column game_id of the games records)"
        )
    code = of_results(results).replay(results, game_id, options, out, err)
    if code:
        raise typer.Exit(code)


@command("play")
def play_command(
    army: Annotated[
        str,
        typer.Option(
            "--army",
            "-a",
            metavar="ARMY",
            help="Your army (seat A): a key (oda), a printed name (織田) or a deck file.",
        ),
    ] = "oda",
    vs: Annotated[
        str | None,
        typer.Option(
            "--vs",
            metavar="ARMY",
            help="The bot's army (seat B); default: another army chosen by the seed.",
        ),
    ] = None,
    bot: Annotated[
        str,
        typer.Option(
            "--bot",
            metavar="BOT",
            help=(f"The bot you play against (default heuristic): {GAME.BOT_FORMS}."),
        ),
    ] = "heuristic",
    rules: Annotated[
        str | None, typer.Option("--rules", "-r", metavar="PRESET", help=PRESET_HELP)
    ] = None,
    toggles: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            "-s",
            metavar="KEY=VALUE",
            help="A rule toggle on top of the preset, e.g. --set walls=10 --set logistics=on "
            "(repeatable; `lab rules` lists the keys).",
        ),
    ] = None,
    game: Annotated[
        str,
        typer.Option(
            "--game",
            "-g",
            metavar="GAME",
            help="The game: daitenka (大天下, the default) or rumble_nation.",
        ),
    ] = "daitenka",
    players: Annotated[
        int | None,
        typer.Option(
            "--players",
            "-p",
            metavar="N",
            help="Rumble Nation: seats in play, 2–4 (default: the preset's).",
        ),
    ] = None,
    seat: Annotated[
        str,
        typer.Option(
            "--seat", metavar="P1…P4", help="Rumble Nation: your seat (the others are bots)."
        ),
    ] = "P1",
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            min=0,
            metavar="N",
            help="Seed of the deal (and of the bot's own choices); kept for every match of the "
            "session. Default: a fresh random seed per match, recorded in the replay.",
        ),
    ] = None,
    save_scenario: Annotated[
        Path | None,
        typer.Option(
            "--save-scenario",
            metavar="PATH",
            help="Also write the session's matches as a scenario file (position after set-up, "
            "every step, final state as expectations) that `lab scenario PATH` passes.",
        ),
    ] = None,
    replay_dir: Annotated[
        Path,
        typer.Option(
            "--replay-dir",
            metavar="DIR",
            help="Where each finished or abandoned match is saved as a replay file (JSON), shown "
            "by `lab replay PATH`.",
        ),
    ] = Path("results/replays"),
    card_files: CardFiles = None,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            metavar="ja|en",
            help="Language of the narration: ja (Japanese, the default for 大天下) or en "
            "(English; Rumble Nation's only one). Card and ability names stay as printed.",
        ),
    ] = None,
) -> None:
    """Play 大天下 in the terminal against a bot, then again with the same or changed settings
    (`--game rumble_nation`: Rumble Nation against bots in the other seats).

    You play seat A. Each decision shows the board as you may see it, your legal actions
    numbered and in the scenario step grammar — type either (the seat may be left out), or
    help, g (graveyards), log, rules, info CARD, quit. The bot's moves and every automatic
    event are narrated one line each. After a match, Enter plays again and KEY=VALUE … changes
    toggles (walls=10 logistics=on) or army=, vs=, bot=, rules=, seed= first. Every match is
    saved as a replay file; quit, Ctrl-C and end of input save it and leave cleanly (exit code
    130 after Ctrl-C).
    """
    from lab.games import get
    from lab.games.protocol import PlayOptions
    from lab.schema.base import parse_assignments

    if lang is not None:
        check_lang(lang)
    entry = get(game, key="--game")
    code = entry.play(
        PlayOptions(
            army=army,
            vs=vs,
            bot=bot,
            rules=rules,
            toggles=parse_assignments(toggles),
            players=players,
            seat=seat,
            seed=seed,
            save_scenario=save_scenario,
            replay_dir=replay_dir,
            card_files=tuple(card_files or ()),
            lang=lang,
        ),
        out,
    )
    if code:
        raise typer.Exit(code)
