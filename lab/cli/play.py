"""``lab match``, ``lab scenario``, ``lab replay`` and ``lab play``: single games a person
watches, checks or plays.

Owns how one game is shown (its log, its result line, the scenario pass/FAIL lines). The games
themselves come from ``lab.engine.api``, ``lab.scenario``, ``lab.sim.replay`` and ``lab.play``;
this module holds no game logic of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from lab.cards.pool import load_army, read_card_files
from lab.cli.common import (PRESET_HELP, CardFiles, Lang, check_lang, command, err, out,
                             pool_of, rules_for, warn)
from lab.errors import LabError
from lab.rules import DEFAULT_PRESET
from lab.schema.bots import BOT_FORMS


# ----------------------------------------------------------------------------------- lab match

@command("match")
def match_command(
    army_a: Annotated[str | None, typer.Argument(help="Army of seat A: key (oda), name (織田) or deck file.")] = None,
    army_b: Annotated[str | None, typer.Argument(help="Army of seat B.")] = None,
    rules: Annotated[str | None, typer.Option("--rules", "-r", help="Rules preset.")] = None,
    config: Annotated[Path | None, typer.Option("--config", help="Rules TOML on top of the preset.")] = None,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the deal and of the bots' choices (a whole number ≥ 0).")] = 0,
    log: Annotated[bool, typer.Option("--log/--no-log", help="Print every event of the game.")] = True,
    card_files: CardFiles = None,
    game_name: Annotated[str, typer.Option(
        "--game", "-g", metavar="GAME",
        help="The game: daitenka (大天下, the default; two armies) or rumble_nation (no "
             "armies; --rules base_3p for three players).")] = "daitenka",
    lang: Lang = "ja",
) -> None:
    """Play one game between random bots and print its log and result."""
    from lab.games import get

    check_lang(lang)

    if get(game_name, key="--game").name == "rumble_nation":
        if army_a is not None or config is not None or card_files:
            raise LabError("Rumble Nation has no armies, rules files or cards: give --rules "
                           "PRESET and --seed only")
        g = get("rumble_nation").match(rules, seed=seed)
        if log:
            for line in g.log_lines():
                out.print(line)
        out.print(Text(f"result: {g.summary()} (rules {g.rules.id}, seed {seed})",
                       style="bold"))
        return
    if army_a is None or army_b is None:
        raise LabError("give two armies, e.g. lab match 織田 西軍 (`lab decks` lists them)")
    rules = rules or DEFAULT_PRESET
    from lab.engine.api import play_random_game

    pool = pool_of(card_files)
    game = play_random_game(rules_for(rules, config), load_army(army_a, pool),
                            load_army(army_b, pool), seed=seed, log=log, pool=pool)
    if log:
        for line in game.log_lines(lang):
            out.print(line)
    out.print(Text(f"result: {game.summary()} ({game.decisions} decisions, rules "
                   f"{game.rules.id}, seed {seed})", style="bold"))


# -------------------------------------------------------------------------------- lab scenario

@command("scenario")
def scenario_command(
    paths: Annotated[list[Path], typer.Argument(help="Scenario files or folders of them.")],
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Print each failing game's log.")] = False,
    card_files: CardFiles = None,
) -> None:
    """Run rules scenarios (scenarios.md): one line per scenario, exit 1 if any fails."""
    from lab.scenario import each_outcome

    failed = total = 0
    for o in each_outcome(paths, log=verbose, pool=pool_of(card_files)):
        total += 1
        s = o.scenario
        if o.passed:
            out.print(Text("pass ", style="green") + Text(f"{s.name}  ({s.file_name})"))
            continue
        failed += 1
        out.print(Text("FAIL ", style="bold red") + Text(f"{s.name}  ({s.file_name}): "
                                                         f"{o.message}"))
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
    results: Annotated[Path, typer.Argument(
        metavar="RESULTS_DIR|REPLAY_FILE",
        help="A results folder written by `lab run`, or a replay file (.json) written by `lab play` (大天下 or Rumble Nation).")],
    game_id: Annotated[int | None, typer.Argument(
        metavar="[GAME_ID]",
        help="The game's id (column game_id of the games records); not with a replay file.")] = None,
    log: Annotated[bool, typer.Option("--log/--no-log", help="Print every event.")] = True,
    save_scenario: Annotated[Path | None, typer.Option(
        "--save-scenario", metavar="PATH",
        help="With a `lab play` replay file: also write it as a scenario file.")] = None,
    lang: Lang = "ja",
) -> None:
    """Replay a recorded game (or a `lab play` match) with its readable log, and check that it
    reproduces the record.

    Exit code 1 if the replay does not reproduce the recorded result.
    """
    check_lang(lang)
    if results.is_file():
        if game_id is not None:
            raise LabError(f"{results} is a replay file written by `lab play`; give no GAME_ID")
        from lab.games.rumble_nation import record as rn_record

        if rn_record.is_replay(results):
            if save_scenario is not None:
                raise LabError("--save-scenario is for 大天下 replays")
            code = rn_record.show(results, console=out, log=log)
            if code:
                raise typer.Exit(code)
            return
        from lab.play import show_replay_file

        code = show_replay_file(results, console=out, log=log, save_scenario=save_scenario,
                                lang=lang)
        if code:
            raise typer.Exit(code)
        return
    if game_id is None:
        raise LabError(f"give the GAME_ID of a game in {results}, or the path of a replay file "
                       "written by `lab play`")
    if game_id < 0:
        raise LabError(f"GAME_ID {game_id} is not allowed; game ids are whole numbers ≥ 0 "
                       "(column game_id of the games records)")
    from lab.games import of_results

    if of_results(results).name == "rumble_nation":
        from lab.games.rumble_nation.experiment import replay as rn_replay

        r = rn_replay(results, game_id)
        row = r.record
        out.print(Text(f"game {game_id}: {row['variant']}, bots {row['tier']}, deal "
                       f"{row['deal']}, P{row['first']} starts", style="bold"), soft_wrap=True)
        if log:
            for line in r.game.log_lines():
                out.print(line, soft_wrap=True)
        out.print(Text(f"result: {r.game.summary()}", style="bold"), soft_wrap=True)
        if not r.reproduced:
            err.print(Text("does not reproduce the record: ", style="bold red")
                      + Text("; ".join(r.mismatches)), soft_wrap=True)
            raise typer.Exit(1)
        out.print(Text("reproduces the recorded game", style="green"))
        return
    from lab.sim.replay import replay

    r = replay(results, game_id)
    row = r.record
    out.print(Text(f"game {game_id}: {row['variant']}, {row['army_a_name']} ({row['army_a']}) vs "
                   f"{row['army_b_name']} ({row['army_b']}), {row['tier']}, deal {row['deal']}"
                   f"{', seats swapped' if row['swapped'] else ''}", style="bold"),
              soft_wrap=True)
    if log:
        for line in r.game.log_lines(lang):
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


@command("play")
def play_command(
    army: Annotated[str, typer.Option(
        "--army", "-a", metavar="ARMY",
        help="Your army (seat A): a key (oda), a printed name (織田) or a deck file.")] = "oda",
    vs: Annotated[str | None, typer.Option(
        "--vs", metavar="ARMY",
        help="The bot's army (seat B); default: another army chosen by the seed.")] = None,
    bot: Annotated[str, typer.Option("--bot", metavar="BOT", help=(
        f"The bot you play against (default heuristic): {BOT_FORMS}."))] = "heuristic",
    rules: Annotated[str | None, typer.Option("--rules", "-r", metavar="PRESET",
                                              help=PRESET_HELP)] = None,
    toggles: Annotated[list[str] | None, typer.Option(
        "--set", "-s", metavar="KEY=VALUE",
        help="A rule toggle on top of the preset, e.g. --set walls=10 --set logistics=on "
             "(repeatable; `lab rules` lists the keys).")] = None,
    game: Annotated[str, typer.Option(
        "--game", "-g", metavar="GAME",
        help="The game: daitenka (大天下, the default) or rumble_nation.")] = "daitenka",
    players: Annotated[int | None, typer.Option(
        "--players", "-p", metavar="N",
        help="Rumble Nation: seats in play, 2–4 (default: the preset's).")] = None,
    seat: Annotated[str, typer.Option(
        "--seat", metavar="P1…P4",
        help="Rumble Nation: your seat (the others are bots).")] = "P1",
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
    card_files: CardFiles = None,
    lang: Annotated[str | None, typer.Option(
        "--lang", metavar="ja|en",
        help="Language of the narration: ja (Japanese, the default for 大天下) or en "
             "(English; Rumble Nation's only one). Card and ability names stay as printed.")
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
    from lab.play.options import parse_assignments

    if lang is not None:
        check_lang(lang)
    if get(game, key="--game").name == "rumble_nation":
        from lab.games.rumble_nation.play import Session, settings as rn_settings

        if lang == "ja":
            raise LabError("--lang ja: Rumble Nation is narrated in English only; drop --lang")

        if save_scenario is not None:
            raise LabError("--save-scenario is for 大天下; Rumble Nation matches are saved as "
                           "replay files (--replay-dir)")
        st = rn_settings(players, rules, parse_assignments(toggles), bot, seat, seed)
        code = Session(st, console=out, replay_dir=replay_dir).run()
        if code:
            raise typer.Exit(code)
        return
    if players is not None or seat != "P1":
        raise LabError("--players and --seat are for --game rumble_nation; 大天下 seats you in "
                       "seat A against one bot")
    from lab.play import PlaySession, PlaySettings
    from lab.play.options import parse_bot_option

    settings = PlaySettings(army=army, vs=vs or "", bot=parse_bot_option(bot),
                            preset=rules or DEFAULT_PRESET,
                            overrides=tuple(parse_assignments(toggles).items()), seed=seed,
                            cards=read_card_files(card_files or ()))
    code = PlaySession(settings, replay_dir=replay_dir, save_scenario=save_scenario,
                       console=out, pool=settings.pool, lang=lang or "ja").run()
    if code:
        raise typer.Exit(code)
