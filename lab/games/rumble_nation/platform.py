"""Rumble Nation as a registered game (``lab.games``): the protocol's names, each from the module
of this package that owns it (rules, game facade, experiment, statistics, report)."""

from __future__ import annotations

from lab.games.rumble_nation.batch import record_columns
from lab.games.rumble_nation.experiment import (GAMES, load_experiment, plan, play_chunk,
                                                schema, warm)
from lab.games.rumble_nation.game import new_game, seats
from lab.games.rumble_nation.rules import DEFAULT as DEFAULT_PRESET
from lab.games.rumble_nation.rules import PRESETS, RNRules

NAME = "rumble_nation"
DISPLAY = "Rumble Nation"
RECORD_KINDS = (GAMES,)


def rules(preset: str | None = None, overrides: dict | None = None,
          source: str | None = None) -> RNRules:
    return RNRules.preset(preset or DEFAULT_PRESET).with_overrides(overrides or {}, source)


def summary_tables(out, exp=None):
    from lab.stats.seats import summary_tables as _tables

    return _tables(out)


def build_report(results, fmt="html", out=None, **options):
    from lab.report.seats import build_report as _build

    return _build(results, fmt=fmt, out=out, **options)


def run_scenario(path):
    from lab.games.rumble_nation.scenario import run_scenario as _run

    return _run(path)


__all__ = ["DEFAULT_PRESET", "DISPLAY", "NAME", "PRESETS", "RECORD_KINDS", "build_report",
           "load_experiment", "new_game", "plan", "play_chunk", "record_columns", "rules",
           "run_scenario", "schema", "seats", "summary_tables", "warm"]
