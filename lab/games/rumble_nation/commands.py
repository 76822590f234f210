"""Rumble Nation's single-game commands behind the protocol (``lab.games.protocol``): what
``lab match``, ``lab ladder``, ``lab bench``, ``lab replay`` and ``lab play`` do and print for
it. The CLI parses the options and hands them here through the entry (``platform``); the games
come from this package's facade, batch player, ladder, record and play session.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from lab.errors import LabError
from lab.games.protocol import BenchOptions, LadderOptions, MatchOptions, PlayOptions, ReplayOptions

LADDER_BOTS = ("random", "heuristic")


def play_one(rules, seed: int = 0, bots=("random",)):
    """One game with ``bots`` (one for every seat, or one per seat) from ``seed``: the finished
    facade game (``log_lines()``, ``summary()``)."""
    from lab.games.rumble_nation.batch import finish, parse_bot
    from lab.games.rumble_nation.game import new_game, seed_words

    specs = [parse_bot(b) for b in bots]
    if len(specs) == 1:
        specs = specs * rules.players
    return finish(new_game(rules, seed_words(seed)), specs)


def speed(entry, presets=None, games: int = 20_000, runs: int = 3, progress=None) -> dict:
    """Random-vs-random games per second on one core per preset (median of ``runs``), with
    decisions per second and per game."""
    import statistics
    import time

    from lab.games.rumble_nation.batch import Buffers, play_rows, seeds_for
    from lab.games.rumble_nation.nb_layout import R_DECISIONS

    out = {}
    buf = Buffers()
    for name in presets or entry.PRESETS:
        r = entry.rules(name)
        bots = ["random"] * r.players
        play_rows(r, bots, seeds_for(1), buffers=buf)  # compiled or loaded before the clock
        figures = []
        for k in range(runs):
            words = seeds_for(games, k)
            t = time.perf_counter()
            rows = play_rows(r, bots, words, buffers=buf)
            dt = time.perf_counter() - t
            figures.append(
                (
                    games / dt,
                    float(rows[:, R_DECISIONS].sum()) / dt,
                    float(rows[:, R_DECISIONS].mean()),
                )
            )
            if progress:
                progress(f"{name} run {k + 1}/{runs}: {games / dt:,.0f} games/s")
        out[name] = {
            "players": r.players,
            "games_per_s": statistics.median(f[0] for f in figures),
            "decisions_per_s": statistics.median(f[1] for f in figures),
            "decisions_per_game": statistics.median(f[2] for f in figures),
        }
    return out


def head_to_head(rules, bots, deals: int = 2000, seed: int = 0) -> list:
    """Every bot against copies of every other, on paired deals (``ladder.head_to_head``)."""
    from lab.games.rumble_nation.ladder import head_to_head as pair

    return [pair(rules, a, b, deals=deals, seed=seed) for a in bots for b in bots if a != b]


# ------------------------------------------------------------------ the commands
def match(entry, o: MatchOptions, console) -> None:
    if o.army_a is not None or o.config is not None or o.card_files:
        raise LabError(
            "Rumble Nation has no armies, rules files or cards: give --rules PRESET and --seed only"
        )
    g = play_one(entry.rules(o.rules), seed=o.seed)
    if o.log:
        for line in g.log_lines():
            console.print(line)
    console.print(Text(f"result: {g.summary()} (rules {g.rules.id}, seed {o.seed})", style="bold"))


def ladder(entry, o: LadderOptions, console) -> None:
    import json

    bots = list(o.bots or LADDER_BOTS)
    if len(bots) < 2:
        raise LabError("--bots: name at least two bots to compare")
    rows = head_to_head(entry.rules(o.rules), bots, deals=o.games, seed=o.seed)
    if o.as_json:
        print(json.dumps([r.as_dict() for r in rows], indent=2, ensure_ascii=False))
        return
    table = Table(
        title=f"Rumble Nation head to head ({rows[0].rules}), 95% CI clustered by deal",
        title_justify="left",
    )
    for col in ("bot", "against", "games", "win rate", "fair share"):
        table.add_column(col, justify="left" if col in ("bot", "against") else "right")
    for r in rows:
        table.add_row(
            r.bot,
            r.against,
            f"{r.games:,}",
            f"{r.rate:.1%} [{r.low:.1%}, {r.high:.1%}]",
            f"{r.fair_share:.0%}",
        )
    console.print(table)


def bench(entry, o: BenchOptions, console, progress_console) -> None:
    import json

    for p in o.presets:
        entry.rules(p)
    result = speed(
        entry,
        list(o.presets) or None,
        games=o.games,
        runs=o.runs,
        progress=None if o.as_json else (lambda m: progress_console.print(m)),
    )
    if o.as_json:
        print(json.dumps(result, indent=2))
        return
    table = Table(
        title=f"Rumble Nation speed, one core, median of {o.runs} runs", title_justify="left"
    )
    for col in ("preset", "players", "games/s", "decisions/s", "decisions/game"):
        table.add_column(col, justify="right" if col != "preset" else "left")
    for name, r in result.items():
        table.add_row(
            name,
            str(r["players"]),
            f"{r['games_per_s']:,.0f}",
            f"{r['decisions_per_s']:,.0f}",
            f"{r['decisions_per_game']:.1f}",
        )
    console.print(table)


def replay(results, game_id: int, o: ReplayOptions, console, err_console) -> int:
    from lab.games.rumble_nation.experiment import replay as replay_record

    r = replay_record(results, game_id)
    row = r.record
    console.print(
        Text(
            f"game {game_id}: {row['variant']}, bots {row['tier']}, deal "
            f"{row['deal']}, P{row['first']} starts",
            style="bold",
        ),
        soft_wrap=True,
    )
    if o.log:
        for line in r.game.log_lines():
            console.print(line, soft_wrap=True)
    console.print(Text(f"result: {r.game.summary()}", style="bold"), soft_wrap=True)
    if not r.reproduced:
        err_console.print(
            Text("does not reproduce the record: ", style="bold red")
            + Text("; ".join(r.mismatches)),
            soft_wrap=True,
        )
        return 1
    console.print(Text("reproduces the recorded game", style="green"))
    return 0


def show_replay_file(path, o: ReplayOptions, console) -> int:
    from lab.games.rumble_nation import record

    if o.save_scenario is not None:
        raise LabError("--save-scenario is for 大天下 replays")
    return record.show(path, console=console, log=o.log)


def play(o: PlayOptions, console) -> int:
    from lab.games.rumble_nation.play import Session, settings

    if o.lang == "ja":
        raise LabError("--lang ja: Rumble Nation is narrated in English only; drop --lang")
    if o.save_scenario is not None:
        raise LabError(
            "--save-scenario is for 大天下; Rumble Nation matches are saved as "
            "replay files (--replay-dir)"
        )
    st = settings(o.players, o.rules, dict(o.toggles or {}), o.bot, o.seat, o.seed)
    return Session(st, console=console, replay_dir=o.replay_dir).run()
