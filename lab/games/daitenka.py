"""大天下 as a registered game (``lab.games``): the protocol's members (``lab.games.protocol``),
each the function the lab used before it hosted several games — the runner, records and report
call exactly what they called then, so 大天下's records and speed are unchanged.

Nothing here holds a rule; everything is imported from the packages that own it (``lab.rules``,
``lab.engine``, ``lab.sim``, ``lab.report``, ``lab.play``) when first asked for, so naming the
game costs nothing until it is played. The single-game commands are in
``lab.games.daitenka_commands``.
"""

from __future__ import annotations

from pathlib import Path

from lab.games import daitenka_commands as commands

SEATS = ("A", "B")


class Daitenka:
    name = "daitenka"
    display = "大天下"
    RECORD_KINDS = ("games", "cards")
    EDITS_CARDS = True  # lab value, lab swap and lab balance edit its cards
    COMPARES_ARMIES = True  # lab serve's side by side compares its armies
    PAGE_TEMPLATES = Path(__file__).parent / "daitenka_templates"

    # ------------------------------------------------------------------ rules and games
    @property
    def PRESETS(self):
        from lab.rules import PRESETS

        return PRESETS

    @property
    def DEFAULT_PRESET(self) -> str:
        from lab.rules import DEFAULT_PRESET

        return DEFAULT_PRESET

    def seats(self, rules=None) -> tuple[str, ...]:
        return SEATS

    def rules(
        self, preset: str | None = None, overrides: dict | None = None, source: str | None = None
    ):
        from lab.rules import DEFAULT_PRESET, RuleSet

        return RuleSet.preset(preset or DEFAULT_PRESET).with_overrides(
            overrides or {}, source=source
        )

    def new_game(self, rules, seed_words, first_seat=None, army_a="oda", army_b="oda"):
        from lab.engine.api import Game

        return Game(rules, army_a, army_b, seed=seed_words, first=first_seat)

    # ------------------------------------------------------------------ experiments
    def load_experiment(self, data: dict, source: str, games=None, cards=()):
        from lab.sim.config import from_daitenka_dict

        return from_daitenka_dict(data, source, games=games, cards=cards)

    def smoke_config(self, games: int = 4) -> dict:
        return {
            "game": self.name,
            "name": "smoke",
            "seed": 3,
            "games": games,
            "armies": ["oda", "takeda"],
            "bots": "random",
            "chunk_size": max(1, games // 2),
            "grid": {"walls": [6, 7]},
        }

    def describe(self, exp) -> str:
        patches = f" × {len(exp.patches)} card patch(es)" if len(exp.patches) > 1 else ""
        return (
            f"{exp.name}: {len(exp.variants)} variant(s){patches} × "
            f"{len(exp.matchups)} matchup(s) × {len(exp.tiers)} bot tier(s) × "
            f"{exp.games} deal(s){' × 2 seat orders' if exp.seat_swap else ''}"
            f" = {exp.total_games:,} games"
        )

    def plan(self, exp):
        from lab.sim.plan import jobs

        return jobs(exp)

    def warm(self, job) -> None:
        """Compile (on every core) or load the kernels the job's bots need, then play one
        game."""
        from lab.bots.compile import ensure_compiled
        from lab.bots.match import searches
        from lab.sim.worker import play

        ensure_compiled(search=searches(job.tier.a, job.tier.b))
        play(job, games=1)

    def play_chunk(self, job, out):
        from lab.sim.worker import play_chunk

        return play_chunk(job, out)

    def schema(self, kind: str):
        from lab.sim import records

        return records.GAMES_SCHEMA if kind == records.GAMES else records.CARDS_SCHEMA

    def record_columns(self, rules=None) -> list[tuple[str, str, str]]:
        """(name, Arrow type, meaning) of the games columns (docs/records.md has the
        meanings)."""
        from lab.sim import records

        return [(f.name, str(f.type), "") for f in records.GAMES_SCHEMA]

    def check_experiment(self, exp) -> list[str]:
        """A deck file far off the armies' strength (cards.md), named before it plays."""
        from lab.cards.pool import load_armies, load_deck, strength_warning

        pool = exp.pool()
        found = []
        for army in exp.armies:
            if not army.builtin:
                w = strength_warning(load_deck(army.path, pool), load_armies(pool))
                if w:
                    found.append(w)
        return found

    def run_warnings(self, result) -> list[str]:
        if result.errors:
            return [
                f"{result.errors} game(s) hit an engine limit (column `error` in games records)"
            ]
        return []

    def summary_tables(self, out, exp=None):
        from lab.sim import summary

        names = {a.key: a.name for a in exp.armies} if exp is not None else None
        return summary.tables(out, names)

    def build_report(self, results, fmt="html", out=None, **options):
        from lab.report.build import build_report

        return build_report(results, fmt=fmt, out=out, **options)

    # ------------------------------------------------------------------ single games
    def prepare_scenarios(self, path, log: bool = False, pool=None) -> list:
        from lab.scenario import prepare

        return prepare(path, log=log, pool=pool)

    def match(self, options, console) -> None:
        commands.match(options, console)

    def ladder(self, options, console, progress_console) -> None:
        commands.ladder(options, console, progress_console)

    def bench(self, options, console, progress_console) -> None:
        commands.bench(options, console, progress_console)

    def replay(self, results, game_id: int, options, console, err_console) -> int:
        return commands.replay(results, game_id, options, console, err_console)

    def owns_replay_file(self, path) -> bool:
        return commands.owns_replay_file(path)

    def show_replay_file(self, path, options, console) -> int:
        return commands.show_replay_file(path, options, console)

    def play(self, options, console) -> int:
        return commands.play(options, console)

    # ------------------------------------------------------------------ the page (lab serve)
    def page_rule_fields(self, preset: str, overrides: dict | None = None) -> list[dict]:
        from lab.games import daitenka_page

        return daitenka_page.rule_fields(preset, overrides)

    def page_settings(self, form, preset: str, overrides: dict, bot: str, seed, uploaded):
        from lab.games import daitenka_page

        return daitenka_page.settings(form, preset, overrides, bot, seed, uploaded)

    def page_match(self, setup, replay_dir):
        from lab.games.daitenka_page import DaitenkaMatch

        return DaitenkaMatch(setup, replay_dir)


GAME = Daitenka()
