"""The process a page's experiment runs in: ``python -m lab.serve.child SPEC.json``.

It calls what the commands call — ``lab.sim.runner.run`` for ``lab run``, ``lab.design.value``
for ``lab value``, ``lab.design.balance`` for ``lab balance`` — with the results folder, lock and
records of the CLI, and writes how it is going to the status file the spec names (atomically,
JSON): ``state`` (starting, running, done, failed, interrupted), a one-line ``message`` (a
LabError's own line when it fails), and what it produced. SIGINT stops it as Ctrl-C stops a
command (finished chunks kept; the same job with resume finishes it). It prints nothing a page
needs and decides nothing of its own.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path


class Status:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.data: dict = {"state": "starting", "pid": os.getpid(), "message": ""}

    def __call__(self, **changes) -> None:
        self.data.update(changes, updated=time.time())
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        tmp.write_text(json.dumps(self.data, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, self.path)


def main(spec_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    status = Status(spec["status"])
    status(state="starting", message="loading the config")
    kind, config, out = spec["kind"], spec["config"], spec["out"]
    # the manifest and the folder lock record the command that would do the same from a shell
    sys.argv = (
        ["lab", kind, config, "--out", out]
        + (["--resume"] if spec.get("resume") else [])
        + (["--fresh"] if spec.get("fresh") else [])
    )
    from lab.errors import LabError
    from lab.sim.runner import RunInterrupted

    try:
        if kind == "run":
            _run(spec, status)
        elif kind == "value":
            _value(spec, status)
        elif kind == "balance":
            _balance(spec, status)
        else:
            raise LabError(f"unknown job kind {kind!r}")
    except RunInterrupted as e:
        status(state="interrupted", message=_line(e))
        return 130
    except KeyboardInterrupt:
        status(state="interrupted", message="interrupted; resume finishes it")
        return 130
    except LabError as e:
        status(state="failed", message=_line(e))
        return 2
    except Exception as e:  # a bug: one line for the page, the traceback in the job's log
        traceback.print_exc()
        status(
            state="failed",
            message=f"internal error: {type(e).__name__}: {_line(e)} (the "
            "job's log has the traceback)",
        )
        return 1
    return 0


def _line(e: BaseException) -> str:
    return " ".join(str(e).split())


def _run(spec: dict, status: Status) -> None:
    from lab.sim import config as sim_config, runner

    exp = sim_config.load_experiment(spec["config"], games=spec.get("games"))
    status(state="running", message="loading the compiled engine", total=exp.total_games)
    result = runner.run(
        exp,
        spec["out"],
        jobs=spec.get("jobs"),
        resume=spec.get("resume", False),
        fresh=spec.get("fresh", False),
    )
    if result.already_complete:
        message = "the folder already holds this experiment's complete records"
    elif result.chunks_played:
        message = (
            f"played {result.played:,} games in {result.play_seconds:.1f} s "
            f"({result.games_per_s:,.0f} games/s); {result.seconds:.1f} s in all"
        )
    else:
        message = "every chunk was already written; nothing to play"
    if result.errors:
        message += f"; {result.errors} game(s) hit an engine limit"
    status(
        state="done",
        message=message,
        played=result.played,
        games_per_s=result.games_per_s,
        play_seconds=result.play_seconds,
        seconds=result.seconds,
    )


def _value(spec: dict, status: Status) -> None:
    from lab import games
    from lab.design import value
    from lab.sim import config as sim_config

    exp = sim_config.load_experiment(spec["config"], games=spec.get("games"))
    if not games.get(exp.game).EDITS_CARDS:
        from lab.errors import LabError

        raise LabError(f"lab value edits 大天下's cards; {exp.source} names game = \"{exp.game}\"")
    cards = [c.strip() for c in str(spec.get("cards") or "").split(",") if c.strip()] or None
    tiers = [spec["tier"]] if spec.get("tier") else None
    plan = value.plan(exp, cards=cards, tiers=tiers)
    status(
        state="running",
        message=f"{len(plan.arms)} arm(s) for {plan.rows} value row(s)",
        total=plan.exp.total_games,
    )
    result = value.run(plan, spec["out"], jobs=spec.get("jobs"), resume=spec.get("resume", False))
    table = value.compute(plan, spec["out"])
    status(
        state="done",
        message=f"{len(table)} value rows; played {result.played:,} games "
        f"({result.games_per_s:,.0f} games/s)",
    )


def _balance(spec: dict, status: Status) -> None:
    from lab import games
    from lab.design import balance, balance_defaults as defaults
    from lab.sim import config as sim_config

    exp = sim_config.load_experiment(spec["config"])
    if not games.get(exp.game).EDITS_CARDS:
        from lab.errors import LabError

        raise LabError(
            f"lab balance edits 大天下's cards; {exp.source} names game = \"{exp.game}\""
        )
    games = spec.get("budget_games")
    minutes = defaults.minutes_budget(spec.get("minutes"), games)
    cards = [c.strip() for c in str(spec.get("cards") or "").split(",") if c.strip()] or None
    p = balance.plan(
        exp,
        tiers=[spec["tiers"]] if spec.get("tiers") else None,
        band=spec.get("band", defaults.BAND),
        max_edits=spec.get("max_edits", defaults.MAX_EDITS),
        cards=cards,
        confirm_games=spec.get("confirm_games", defaults.CONFIRM_GAMES),
        strong_games=spec.get("strong_games", defaults.STRONG_GAMES),
        deck_lists=spec.get("deck_lists", defaults.DECK_LISTS),
        abilities=spec.get("abilities", defaults.ABILITIES),
        centre=spec.get("centre", defaults.CENTRE),
    )
    balance.check_options(minutes, games)

    def progress(st) -> None:
        if games is not None and minutes is None:
            done, total = st.games, games
        else:
            done, total = st.elapsed, 60 * minutes
        status(
            state="running",
            message=f"round {st.round} ({st.phase}), {st.candidates:,} "
            f"edit sets, {st.dropped:,} dropped",
            fraction=min(1.0, done / total) if total else 0.0,
            games=st.games,
            front=[list(map(float, row[:3])) + [bool(row[3])] for row in st.front],
        )

    status(state="running", message=f"{len(p.moves)} single edits ({p.value_note})")
    result = balance.run(
        p,
        spec["out"],
        minutes=minutes,
        games=games,
        resume=spec.get("resume", False),
        jobs=spec.get("jobs"),
        progress=progress,
    )
    from lab.report.balance import headline

    status(state="done", message=headline(result), fraction=1.0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
