"""Showing a replay file written by `lab play`: the match played again from its steps, with the
full event log (every hidden card named — it is a record for the designer), and a check that it
ends in the recorded state. Optionally writes the match as a scenario file.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.text import Text

from lab.games.daitenka.cards.pool import load_pool
from lab.games.daitenka.engine.api import IllegalAction
from lab.errors import LabError
from lab.games.daitenka.play.narrate import Narrator
from lab.games.daitenka.play.record import (
    check_scenario_path,
    differences,
    final_state,
    load_record,
    new_game,
    start_position,
    write_scenarios,
)
from lab.games.daitenka.play.view import SEAT_STYLE

EXIT_MISMATCH = 1


def show_replay_file(
    path: str | Path,
    console: Console | None = None,
    log: bool = True,
    save_scenario: str | Path | None = None,
    lang: str = "ja",
) -> int:
    """Print a `lab play` replay file and check it reproduces its recorded final state.

    Returns the exit code: 0 when it reproduces, 1 when a step no longer replays or the state
    differs. A file that is not a readable replay raises ``LabError`` (one line, exit 2).
    ``save_scenario``: also write the match as a scenario file that `lab scenario` passes.
    """
    console = console or Console(highlight=False)
    pool = load_pool()
    rec = load_record(path, pool)
    if save_scenario is not None:
        check_scenario_path(Path(save_scenario))
    a, b = rec.decks["A"], rec.decks["B"]
    console.print(
        Text(
            f"replay {path}: A {a.name} ({a.key}, {rec.players.get('A', '?')}) vs B {b.name} "
            f"({b.key}, {rec.players.get('B', '?')}), bot {rec.bot or '—'}, rules {rec.rules.id}, "
            f"seed {rec.seed}; {rec.status}, {len(rec.steps)} steps, saved {rec.created}",
            style="bold",
        ),
        soft_wrap=True,
    )
    game = new_game(rec, pool)
    narrator = Narrator(game, None, lang)
    start = None
    problem = ""
    for k, (seat, by, text) in enumerate(rec.steps):
        if start is None and game.leader_turn_due:
            start = start_position(game)
        game.legal_actions()  # begins a due leader turn, so its draw is told before the step
        _print(console, narrator, log)
        if log:
            console.print(
                Text(f"▶ {text}  ({by})", style=f"dim {SEAT_STYLE.get(seat, '')}"), soft_wrap=True
            )
        try:
            game.step(text)
        except IllegalAction as e:
            problem = f"step {k + 1} \"{text}\" does not replay: {e}"
            break
    _print(console, narrator, log)
    if start is None and game.leader_turn_due:
        start = start_position(game)
    console.print(
        Text(f"result: {game.summary()} ({game.decisions} decisions)", style="bold"), soft_wrap=True
    )
    if not problem:
        diffs = differences(rec.final, final_state(game))
        if diffs:
            problem = "the replayed state differs from the recorded one: " + "; ".join(diffs[:5])
    if problem:
        console.print(
            Text("does not reproduce the recorded match: ", style="bold red") + Text(problem),
            soft_wrap=True,
        )
        return EXIT_MISMATCH
    console.print(Text("reproduces the recorded match", style="green"))
    if save_scenario is not None:
        rec.start, rec.final = start, final_state(game)
        if start is None:
            raise LabError(
                "the match was abandoned during set-up; there is no position to "
                "write as a scenario",
                source=str(path),
            )
        out = write_scenarios(Path(save_scenario), [rec])
        console.print(f"scenario saved: {out} (check it: lab scenario {out})", soft_wrap=True)
    return 0


def _print(console: Console, narrator: Narrator, log: bool) -> None:
    lines = narrator.take()
    if log:
        for line in lines:
            style = "bold" if line.kind else SEAT_STYLE.get(line.seat, "")
            console.print(
                Text(("" if line.kind else "  ") + line.text, style=style), soft_wrap=True
            )
