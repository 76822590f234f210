"""Rumble Nation as a registered game (``lab.games``): the protocol's members
(``lab.games.protocol``), each from the module of this package that owns it (rules, game facade,
experiment, statistics, report, commands)."""

from __future__ import annotations

from pathlib import Path

from lab.errors import LabError
from lab.games.rumble_nation import commands
from lab.games.rumble_nation.batch import parse_bot, record_columns
from lab.games.rumble_nation.experiment import (
    GAMES,
    load_experiment,
    plan,
    play_chunk,
    schema,
    warm,
)
from lab.games.rumble_nation.game import new_game, seats
from lab.games.rumble_nation.record import is_replay
from lab.games.rumble_nation.rules import DEFAULT as DEFAULT_PRESET
from lab.games.rumble_nation.rules import PRESETS, RNRules


class RumbleNation:
    name = "rumble_nation"
    display = "Rumble Nation"
    RECORD_KINDS = (GAMES,)
    PRESETS = PRESETS
    DEFAULT_PRESET = DEFAULT_PRESET
    EDITS_CARDS = False  # no cards: lab value, lab swap and lab balance refuse it
    COMPARES_ARMIES = False  # no armies: lab serve's side by side refuses it
    PAGE_TEMPLATES = Path(__file__).parent / "templates"

    # ------------------------------------------------------------------ rules and games
    def seats(self, rules=None) -> tuple[str, ...]:
        return seats(rules if rules is not None else self.rules())

    def rules(
        self, preset: str | None = None, overrides: dict | None = None, source: str | None = None
    ) -> RNRules:
        return RNRules.preset(preset or DEFAULT_PRESET).with_overrides(overrides or {}, source)

    def new_game(self, rules, seed_words, first_seat=None):
        return new_game(rules, seed_words, first_seat)

    # ------------------------------------------------------------------ experiments
    def load_experiment(self, data: dict, source: str, games=None, cards=()):
        return load_experiment(data, source, games=games, cards=cards)

    def smoke_config(self, games: int = 4) -> dict:
        return {
            "game": self.name,
            "name": "smoke",
            "seed": 3,
            "games": games,
            "chunk_size": max(1, games // 2),
            "rules": ["base_3p"],
            "bots": "random",
            "grid": {"reroll": [True, False]},
        }

    def describe(self, exp) -> str:
        tiers = f" × {len(exp.tiers)} bot tier(s)" if len(exp.tiers) > 1 else ""
        return (
            f"{exp.name} ({self.display}): {len(exp.variants)} variant(s){tiers} × "
            f"{exp.games:,} deal(s) = {exp.total_games:,} games"
        )

    def plan(self, exp):
        return plan(exp)

    def warm(self, job) -> None:
        warm(job)

    def play_chunk(self, job, out):
        return play_chunk(job, out)

    def schema(self, kind: str):
        return schema(kind)

    def record_columns(self, rules=None) -> list[tuple[str, str, str]]:
        return record_columns(rules)

    def check_experiment(self, exp) -> list[str]:
        return []

    def run_warnings(self, result) -> list[str]:
        return []

    def summary_tables(self, out, exp=None):
        from lab.stats.seats import summary_tables

        return summary_tables(out)

    def build_report(self, results, fmt="html", out=None, **options):
        from lab.report.seats import build_report

        return build_report(results, fmt=fmt, out=out, **options)

    # ------------------------------------------------------------------ statistics and reports
    def armies(self) -> list[tuple[str, str]]:
        return []  # no armies

    def card_pool(self, extra=()):
        return None  # no cards

    LANGS = ("en",)  # narrated in English only
    BOT_FORMS = (
        "random, heuristic or search (a TOML table such as { kind = \"search\", simulations = 64 })"
    )

    def bot_short(self, spec) -> str:
        return parse_bot(spec).label

    def card_design(self):
        raise LabError(
            "Rumble Nation has no cards: lab value, lab swap and lab balance edit a game's "
            "cards — use lab run and lab report for it"
        )

    def variant_ids(self, config: dict) -> list[str]:
        return [v.get("id") for v in config.get("variants") or []]

    # ------------------------------------------------------------------ single games
    def prepare_scenarios(self, path, log: bool = False, pool=None) -> list:
        from lab.games.rumble_nation.scenario import prepare

        return prepare(path)

    def match(self, options, console) -> None:
        commands.match(self, options, console)

    def ladder(self, options, console, progress_console) -> None:
        commands.ladder(self, options, console)

    def bench(self, options, console, progress_console) -> None:
        commands.bench(self, options, console, progress_console)

    def replay(self, results, game_id: int, options, console, err_console) -> int:
        return commands.replay(results, game_id, options, console, err_console)

    def owns_replay_file(self, path) -> bool:
        return is_replay(path)

    def show_replay_file(self, path, options, console) -> int:
        return commands.show_replay_file(path, options, console)

    def play(self, options, console) -> int:
        return commands.play(options, console)

    def cards(self, options, console) -> None:
        raise LabError("Rumble Nation has no cards")

    def decks(self, options, console, warn) -> None:
        raise LabError("Rumble Nation has no decks")

    def show_rules(self, options, console) -> None:
        raise LabError("Rumble Nation's rule sets are listed in docs/rumble_nation.md")

    HELP = {"kind": "", "deck_check": ""}  # no cards, no decks

    # ------------------------------------------------------------------ the page (lab serve)
    def page_rule_fields(self, preset: str, overrides: dict | None = None) -> list[dict]:
        from lab.games.rumble_nation import page

        return page.rule_fields(preset, overrides)

    def page_settings(self, form, preset: str, overrides: dict, bot: str, seed, uploaded):
        from lab.games.rumble_nation import page

        return page.settings(form, preset, overrides, bot, seed, uploaded)

    def page_upload(self, text: str, name: str) -> dict[str, str]:
        raise LabError(f"{name}: Rumble Nation plays no uploaded file")

    def page_match(self, setup, replay_dir):
        from lab.games.rumble_nation.page import RumbleMatch

        return RumbleMatch(setup, replay_dir)


GAME = RumbleNation()
