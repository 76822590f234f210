"""大天下 as a registered game (``lab.games``): the protocol's names, each the function the lab
used before it hosted several games — the runner, records and report call exactly what they
called then, so 大天下's records and speed are unchanged.

Nothing here holds a rule; everything is imported from the packages that own it (``lab.rules``,
``lab.engine``, ``lab.sim``, ``lab.report``) when first asked for.
"""

from __future__ import annotations

NAME = "daitenka"
DISPLAY = "大天下"
SEATS = ("A", "B")
RECORD_KINDS = ("games", "cards")


def __getattr__(name):
    # PRESETS and DEFAULT_PRESET without importing the rules at registry time
    if name in ("PRESETS", "DEFAULT_PRESET"):
        import lab.rules

        return getattr(lab.rules, name)
    raise AttributeError(name)


def seats(rules=None) -> tuple[str, ...]:
    return SEATS


def rules(preset: str | None = None, overrides: dict | None = None, source: str | None = None):
    from lab.rules import DEFAULT_PRESET, RuleSet

    return RuleSet.preset(preset or DEFAULT_PRESET).with_overrides(overrides or {},
                                                                   source=source)


def new_game(rules, seed_words, first_seat=None, army_a="oda", army_b="oda"):
    from lab.engine.api import Game

    return Game(rules, army_a, army_b, seed=seed_words, first=first_seat)


def load_experiment(data: dict, source: str, games=None, cards=()):
    from lab.sim.config import from_daitenka_dict

    return from_daitenka_dict(data, source, games=games, cards=cards)


def plan(exp):
    from lab.sim.plan import jobs

    return jobs(exp)


def warm(job) -> None:
    """Compile (on every core) or load the kernels the job's bots need, then play one game."""
    from lab.bots.compile import ensure_compiled
    from lab.bots.match import searches
    from lab.sim.worker import play

    ensure_compiled(search=searches(job.tier.a, job.tier.b))
    play(job, games=1)


def play_chunk(job, out):
    from lab.sim.worker import play_chunk as _play_chunk

    return _play_chunk(job, out)


def schema(kind: str):
    from lab.sim import records

    return records.GAMES_SCHEMA if kind == records.GAMES else records.CARDS_SCHEMA


def record_columns(rules=None) -> list[tuple[str, str, str]]:
    """(name, Arrow type, meaning) of the games columns (docs/records.md has the meanings)."""
    from lab.sim import records

    return [(f.name, str(f.type), "") for f in records.GAMES_SCHEMA]


def summary_tables(out, exp=None):
    from lab.sim import summary

    names = {a.key: a.name for a in exp.armies} if exp is not None else None
    return summary.tables(out, names)


def build_report(results, fmt="html", out=None, **options):
    from lab.report.build import build_report as _build

    return _build(results, fmt=fmt, out=out, **options)


def prepare_scenarios(path):
    from lab.scenario import prepare

    return prepare(path)
