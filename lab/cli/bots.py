"""``lab ladder`` and ``lab bench``: how strong the bots are and how fast the engine is.

Owns how speed figures are shown. The ladder is played, rated and drawn as tables by
``lab.bots.ladder``, the timings taken by ``lab.bench``; bots typed on the command line
go through the lab's one bot grammar (``lab.schema.bots``).
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from lab.cards.pool import load_armies
from lab.cli.common import command, err, out
from lab.rules import DEFAULT_PRESET, RuleSet
from lab.schema.bots import BOT_FORMS, bot_from_text


# ---------------------------------------------------------------------------------- lab ladder

@command("ladder")
def ladder_command(
    bots: Annotated[list[str] | None, typer.Option("--bots", help=f"Bots to rate (repeat the option), each {BOT_FORMS}.")] = None,
    games: Annotated[int, typer.Option(help="Games per pair of bots, spread over all ordered army pairs with the seats exchanged: rounded up to a multiple of 162 (with a note).")] = 324,
    rules: Annotated[str, typer.Option("--rules", "-r", help="Rules preset.")] = DEFAULT_PRESET,
    seed: Annotated[int, typer.Option(help="Seed of the deals.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
    game: Annotated[str, typer.Option(
        "--game", "-g", metavar="GAME",
        help="daitenka (大天下, the default) or rumble_nation (each bot against copies of the "
             "other on --games paired deals; --rules base_2p … base_4p).")] = "daitenka",
) -> None:
    """Rate bots against each other: Bradley–Terry ratings with 95% intervals and head-to-head."""
    import json

    from lab.games import get

    if get(game, key="--game").name == "rumble_nation":
        return _rn_ladder(bots or ["random", "heuristic"], games,
                          None if rules == DEFAULT_PRESET else rules, seed, as_json)

    from lab.bots.ladder import DEFAULT_BOTS, check, games_per_pair, render, run_ladder
    from lab.sim.progress import games_bar, note

    specs = [bot_from_text(b, "--bots") for b in (bots or DEFAULT_BOTS)]
    check(specs, games)
    played = games_per_pair(games, len(load_armies()))
    if played != games and not as_json:
        unit = games_per_pair(1, len(load_armies()))
        note(err, f"--games {games} rounded up to {played:,}: each pair of bots plays every "
                  f"ordered pair of the {len(load_armies())} armies with the seats exchanged, "
                  f"a multiple of {unit} games")
    pairs = len(specs) * (len(specs) - 1) // 2
    with games_bar(None if as_json else err,
                   pairs * games_per_pair(games, len(load_armies())), 0) as advance:
        result = run_ladder(specs, games=games, rules=RuleSet.preset(rules), seed=seed,
                            progress=advance)
    if as_json:
        print(json.dumps(result.as_json(), indent=2, ensure_ascii=False))
        return
    render(result, out)


def _rn_ladder(bots, deals: int, preset, seed: int, as_json: bool) -> None:
    import json

    from lab.games import get

    if len(bots) < 2:
        from lab.errors import LabError

        raise LabError("--bots: name at least two bots to compare")
    rows = get("rumble_nation").ladder(bots, deals=deals, preset=preset, seed=seed)
    if as_json:
        print(json.dumps([r.as_dict() for r in rows], indent=2, ensure_ascii=False))
        return
    table = Table(title=f"Rumble Nation head to head ({rows[0].rules}), 95% CI clustered by "
                        "deal", title_justify="left")
    for col in ("bot", "against", "games", "win rate", "fair share"):
        table.add_column(col, justify="left" if col in ("bot", "against") else "right")
    for r in rows:
        table.add_row(r.bot, r.against, f"{r.games:,}",
                      f"{r.rate:.1%} [{r.low:.1%}, {r.high:.1%}]", f"{r.fair_share:.0%}")
    out.print(table)


# ----------------------------------------------------------------------------------- lab bench

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
    bot_games: Annotated[int, typer.Option(
        min=0, help="Games per run of each of the heuristic, tuned and strong bots against "
                    "itself (second edition, one core; 0 = skip).")] = 4_000,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
    game: Annotated[str, typer.Option(
        "--game", "-g", metavar="GAME",
        help="daitenka (大天下, the default) or rumble_nation (random bots per preset; no "
             "compile timings).")] = "daitenka",
) -> None:
    """Engine speed: random-vs-random games on one core, all nine armies, per preset; the
    heuristic, tuned and strong bots' own games/s; then the cold compile and cached start of a
    fresh process. Each step shows what runs and for how long."""
    import json

    from lab import bench
    from lab.games import get
    from lab.sim.progress import status

    if get(game, key="--game").name == "rumble_nation":
        rn = get("rumble_nation")
        for p in preset or []:
            rn.rules(p)
        result = rn.bench(preset, games=games, runs=runs,
                          progress=None if as_json else (lambda m: err.print(m)))
        if as_json:
            print(json.dumps(result, indent=2))
            return
        table = Table(title=f"Rumble Nation speed, one core, median of {runs} runs",
                      title_justify="left")
        for col in ("preset", "players", "games/s", "decisions/s", "decisions/game"):
            table.add_column(col, justify="right" if col != "preset" else "left")
        for name, r in result.items():
            table.add_row(name, str(r["players"]), f"{r['games_per_s']:,.0f}",
                          f"{r['decisions_per_s']:,.0f}", f"{r['decisions_per_game']:.1f}")
        out.print(table)
        return

    for p in preset or []:
        RuleSet.preset(p)
    console = None if as_json else err
    result = bench.run(preset, games=games, runs=runs, compile_runs=compile_runs,
                       start_runs=start_runs,
                       progress=None if as_json else (lambda m: err.print(m)),
                       status=lambda m: status(console, m))
    bots = bench.bot_speed(games=bot_games, runs=runs,
                           progress=None if as_json else (lambda m: err.print(m)),
                           status=lambda m: status(console, m)) if bot_games else {}
    if as_json:
        print(json.dumps({**result, "bots": bots} if bots else result, indent=2))
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
    if bots:
        table = Table(title=f"bots against themselves, second edition, one core, median of "
                            f"{runs} runs", title_justify="left")
        for col in ("bot", "games/s", "× heuristic (same run)"):
            table.add_column(col, justify="right" if col != "bot" else "left")
        for name, r in bots.items():
            table.add_row(name, f"{r['games_per_s']:,.0f}", f"{r['vs_first']:.2f}")
        out.print(table)
