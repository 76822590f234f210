"""大天下's single-game commands behind the protocol (``lab.games.protocol``): what ``lab match``,
``lab ladder``, ``lab bench``, ``lab replay`` and ``lab play`` do and print for 大天下. The CLI
parses the options and hands them here through the entry (``lab.games.daitenka``); the games,
ladders and timings come from the packages that own them (``lab.games.daitenka.engine.api``, ``lab.games.daitenka.bots``,
``lab.games.daitenka.bench``, ``lab.games.daitenka.replay``, ``lab.games.daitenka.play``).
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from lab.errors import LabError
from lab.games.protocol import BenchOptions, LadderOptions, MatchOptions, PlayOptions, ReplayOptions


def match(o: MatchOptions, console) -> None:
    from lab.games.daitenka.cards.pool import load_army, load_pool
    from lab.games.daitenka.engine.api import play_random_game
    from lab.games.daitenka.rules import DEFAULT_PRESET, RuleSet

    if o.army_a is None or o.army_b is None:
        raise LabError("give two armies, e.g. lab match 織田 西軍 (`lab decks` lists them)")
    preset = o.rules or DEFAULT_PRESET
    rules = (
        RuleSet.from_toml(o.config, preset=preset)
        if o.config is not None
        else RuleSet.preset(preset)
    )
    pool = load_pool(extra=tuple(o.card_files))
    game = play_random_game(
        rules,
        load_army(o.army_a, pool),
        load_army(o.army_b, pool),
        seed=o.seed,
        log=o.log,
        pool=pool,
    )
    if o.log:
        for line in game.log_lines(o.lang):
            console.print(line)
    console.print(
        Text(
            f"result: {game.summary()} ({game.decisions} decisions, rules "
            f"{game.rules.id}, seed {o.seed})",
            style="bold",
        )
    )


def ladder(o: LadderOptions, console, progress_console) -> None:
    import json

    from lab.games.daitenka.bots.ladder import (
        DEFAULT_BOTS,
        check,
        games_per_pair,
        render,
        run_ladder,
    )
    from lab.games.daitenka.cards.pool import load_armies
    from lab.games.daitenka.rules import DEFAULT_PRESET, RuleSet
    from lab.games.daitenka.schema.bots import bot_from_text
    from lab.sim.progress import games_bar, note

    specs = [bot_from_text(b, "--bots") for b in (o.bots or DEFAULT_BOTS)]
    check(specs, o.games)
    armies = len(load_armies())
    played = games_per_pair(o.games, armies)
    if played != o.games and not o.as_json:
        unit = games_per_pair(1, armies)
        note(
            progress_console,
            f"--games {o.games} rounded up to {played:,}: each pair of bots "
            f"plays every ordered pair of the {armies} armies with the seats "
            f"exchanged, a multiple of {unit} games",
        )
    pairs = len(specs) * (len(specs) - 1) // 2
    with games_bar(None if o.as_json else progress_console, pairs * played, 0) as advance:
        result = run_ladder(
            specs,
            games=o.games,
            rules=RuleSet.preset(o.rules or DEFAULT_PRESET),
            seed=o.seed,
            progress=advance,
        )
    if o.as_json:
        print(json.dumps(result.as_json(), indent=2, ensure_ascii=False))
        return
    render(result, console)


def bench(o: BenchOptions, console, progress_console) -> None:
    import json

    from lab.games.daitenka import bench as timings
    from lab.games.daitenka.rules import RuleSet
    from lab.sim.progress import status

    for p in o.presets:
        RuleSet.preset(p)
    shown = None if o.as_json else progress_console
    result = timings.run(
        list(o.presets) or None,
        games=o.games,
        runs=o.runs,
        compile_runs=o.compile_runs,
        start_runs=o.start_runs,
        progress=None if o.as_json else (lambda m: progress_console.print(m)),
        status=lambda m: status(shown, m),
    )
    bots = (
        timings.bot_speed(
            games=o.bot_games,
            runs=o.runs,
            progress=None if o.as_json else (lambda m: progress_console.print(m)),
            status=lambda m: status(shown, m),
        )
        if o.bot_games
        else {}
    )
    if o.as_json:
        print(json.dumps({**result, "bots": bots} if bots else result, indent=2))
        return
    table = Table(title=f"engine speed, one core, median of {o.runs} runs", title_justify="left")
    for col in (
        "preset",
        "games/s",
        "decisions/s",
        "decisions/game",
        "cold compile s",
        "cached start s",
    ):
        table.add_column(col, justify="right" if col != "preset" else "left")
    for name, r in result.items():

        def fmt(v):
            return "—" if v is None else f"{v:.2f}"

        table.add_row(
            name,
            f"{r['games_per_s']:,.0f}",
            f"{r['decisions_per_s']:,.0f}",
            f"{r['decisions_per_game']:.1f}",
            fmt(r["compile_s"]),
            fmt(r["cached_start_s"]),
        )
    console.print(table)
    if bots:
        table = Table(
            title=f"bots against themselves, second edition, one core, median of {o.runs} runs",
            title_justify="left",
        )
        for col in ("bot", "games/s", "× heuristic (same run)"):
            table.add_column(col, justify="right" if col != "bot" else "left")
        for name, r in bots.items():
            table.add_row(name, f"{r['games_per_s']:,.0f}", f"{r['vs_first']:.2f}")
        console.print(table)


def replay(results, game_id: int, o: ReplayOptions, console, err_console) -> int:
    from lab.games.daitenka.replay import replay as replay_record

    r = replay_record(results, game_id)
    row = r.record
    console.print(
        Text(
            f"game {game_id}: {row['variant']}, {row['army_a_name']} "
            f"({row['army_a']}) vs {row['army_b_name']} ({row['army_b']}), "
            f"{row['tier']}, deal {row['deal']}"
            f"{', seats swapped' if row['swapped'] else ''}",
            style="bold",
        ),
        soft_wrap=True,
    )
    if o.log:
        for line in r.game.log_lines(o.lang):
            console.print(line, soft_wrap=True)
    console.print(
        Text(f"result: {r.game.summary()} ({r.game.decisions} decisions)", style="bold"),
        soft_wrap=True,
    )
    for w in r.warnings:
        err_console.print(Text("warning: ", style="bold yellow") + Text(w), soft_wrap=True)
    if not r.reproduced:
        err_console.print(
            Text("does not reproduce the record: ", style="bold red")
            + Text("; ".join(r.mismatches)),
            soft_wrap=True,
        )
        return 1
    console.print(Text("reproduces the recorded game", style="green"))
    return 0


def owns_replay_file(path) -> bool:
    import json
    from pathlib import Path

    from lab.games.daitenka.play.record import FORMAT

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


def show_replay_file(path, o: ReplayOptions, console) -> int:
    from lab.games.daitenka.play import show_replay_file as show

    return show(path, console=console, log=o.log, save_scenario=o.save_scenario, lang=o.lang)


def play(o: PlayOptions, console) -> int:
    from lab.games.daitenka.cards.pool import read_card_files
    from lab.games.daitenka.play import PlaySession, PlaySettings
    from lab.games.daitenka.play.options import parse_bot_option
    from lab.games.daitenka.rules import DEFAULT_PRESET

    if o.players is not None or o.seat != "P1":
        raise LabError(
            "--players and --seat are for --game rumble_nation; 大天下 seats you in "
            "seat A against one bot"
        )
    settings = PlaySettings(
        army=o.army,
        vs=o.vs or "",
        bot=parse_bot_option(o.bot),
        preset=o.rules or DEFAULT_PRESET,
        overrides=tuple((o.toggles or {}).items()),
        seed=o.seed,
        cards=read_card_files(o.card_files),
    )
    return PlaySession(
        settings,
        replay_dir=o.replay_dir,
        save_scenario=o.save_scenario,
        console=console,
        pool=settings.pool,
        lang=o.lang or "ja",
    ).run()
