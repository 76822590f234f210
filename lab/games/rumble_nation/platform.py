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


def prepare_scenarios(path):
    from lab.games.rumble_nation.scenario import prepare

    return prepare(path)


__all__ = ["DEFAULT_PRESET", "DISPLAY", "NAME", "PRESETS", "RECORD_KINDS", "build_report",
           "load_experiment", "new_game", "plan", "play_chunk", "record_columns", "rules",
           "prepare_scenarios", "schema", "seats", "summary_tables", "warm"]


# ------------------------------------------------------------------ single games and speed
def match(preset: str | None = None, overrides: dict | None = None, seed: int = 0,
          bots=("random",)):
    """One game with ``bots`` (one for every seat, or one per seat) from ``seed``: the
    finished facade game (``log_lines()``, ``summary()``)."""
    from lab.games.rumble_nation.batch import finish, parse_bot
    from lab.games.rumble_nation.game import seed_words

    r = rules(preset, overrides)
    specs = [parse_bot(b) for b in bots]
    if len(specs) == 1:
        specs = specs * r.players
    return finish(new_game(r, seed_words(seed)), specs)


def bench(presets=None, games: int = 20_000, runs: int = 3, progress=None) -> dict:
    """Random-vs-random games per second on one core per preset (median of ``runs``), with
    decisions per second and per game."""
    import statistics
    import time

    from lab.games.rumble_nation.batch import Buffers, play_rows, seeds_for
    from lab.games.rumble_nation.nb_layout import R_DECISIONS

    out = {}
    buf = Buffers()
    for name in presets or PRESETS:
        r = rules(name)
        bots = ["random"] * r.players
        play_rows(r, bots, seeds_for(1), buffers=buf)  # compiled or loaded before the clock
        figures = []
        for k in range(runs):
            words = seeds_for(games, k)
            t = time.perf_counter()
            rows = play_rows(r, bots, words, buffers=buf)
            dt = time.perf_counter() - t
            figures.append((games / dt, float(rows[:, R_DECISIONS].sum()) / dt,
                            float(rows[:, R_DECISIONS].mean())))
            if progress:
                progress(f"{name} run {k + 1}/{runs}: {games / dt:,.0f} games/s")
        out[name] = {"players": r.players,
                     "games_per_s": statistics.median(f[0] for f in figures),
                     "decisions_per_s": statistics.median(f[1] for f in figures),
                     "decisions_per_game": statistics.median(f[2] for f in figures)}
    return out


def ladder(bots, deals: int = 2000, preset: str | None = None, seed: int = 0) -> list:
    """Every bot against copies of every other, on paired deals (``ladder.head_to_head``)."""
    from lab.games.rumble_nation.ladder import head_to_head

    r = rules(preset)
    return [head_to_head(r, a, b, deals=deals, seed=seed) for a in bots for b in bots
            if a != b]
