"""大天下 as a registered game (``lab.games``): the protocol's members (``lab.games.protocol``),
each the function the lab used before it hosted several games — the runner, records and report
call exactly what they called then, so 大天下's records and speed are unchanged.

Nothing here holds a rule; everything is imported from the modules of this folder that own it
(``rules``, ``engine``, ``experiment``, ``plan``, ``worker``, ``records``, ``summary``,
``scenario``, ``play``) or from the shared report when first asked for, so naming the game costs
nothing until it is played. The single-game commands are in ``commands`` and
``cards_commands``.
"""

from __future__ import annotations

import functools
from pathlib import Path

from lab.games.daitenka import commands

SEATS = ("A", "B")


class Daitenka:
    name = "daitenka"
    display = "大天下"
    RECORD_KINDS = ("games", "cards")
    EDITS_CARDS = True  # lab value, lab swap and lab balance edit its cards
    COMPARES_ARMIES = True  # lab serve's side by side compares its armies
    PAGE_TEMPLATES = Path(__file__).parent / "templates"

    # ------------------------------------------------------------------ rules and games
    @property
    def PRESETS(self):
        from lab.games.daitenka.rules import PRESETS

        return PRESETS

    @property
    def DEFAULT_PRESET(self) -> str:
        from lab.games.daitenka.rules import DEFAULT_PRESET

        return DEFAULT_PRESET

    def seats(self, rules=None) -> tuple[str, ...]:
        return SEATS

    def rules(
        self, preset: str | None = None, overrides: dict | None = None, source: str | None = None
    ):
        from lab.games.daitenka.rules import DEFAULT_PRESET, RuleSet

        return RuleSet.preset(preset or DEFAULT_PRESET).with_overrides(
            overrides or {}, source=source
        )

    def new_game(self, rules, seed_words, first_seat=None, army_a="oda", army_b="oda"):
        from lab.games.daitenka.engine.api import Game

        return Game(rules, army_a, army_b, seed=seed_words, first=first_seat)

    # ------------------------------------------------------------------ experiments
    def load_experiment(self, data: dict, source: str, games=None, cards=()):
        from lab.games.daitenka.experiment import from_daitenka_dict

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
        from lab.games.daitenka.plan import jobs

        return jobs(exp)

    def warm(self, job) -> None:
        """Compile (on every core) or load the kernels the job's bots need, then play one
        game."""
        from lab.games.daitenka.bots.compile import ensure_compiled
        from lab.games.daitenka.bots.match import searches
        from lab.games.daitenka.worker import play

        ensure_compiled(search=searches(job.tier.a, job.tier.b))
        play(job, games=1)

    def play_chunk(self, job, out):
        from lab.games.daitenka.worker import play_chunk

        return play_chunk(job, out)

    def schema(self, kind: str):
        from lab.games.daitenka import records

        return records.GAMES_SCHEMA if kind == records.GAMES else records.CARDS_SCHEMA

    def record_columns(self, rules=None) -> list[tuple[str, str, str]]:
        """(name, Arrow type, meaning) of the games columns (docs/records.md has the
        meanings)."""
        from lab.games.daitenka import records

        return [(f.name, str(f.type), "") for f in records.GAMES_SCHEMA]

    def check_experiment(self, exp) -> list[str]:
        """A deck file far off the armies' strength (cards.md), named before it plays."""
        from lab.games.daitenka.cards.pool import load_armies, load_deck, strength_warning

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
        from lab.games.daitenka import summary

        names = {a.key: a.name for a in exp.armies} if exp is not None else None
        return summary.tables(out, names)

    def build_report(self, results, fmt="html", out=None, **options):
        from lab.report.build import build_report

        return build_report(results, fmt=fmt, out=out, **options)

    # ------------------------------------------------------------------ statistics and reports
    def armies(self) -> list[tuple[str, str]]:
        return list(_armies())

    def card_pool(self, extra=()):
        from lab.games.daitenka.cards.pool import load_pool

        return load_pool(extra=tuple(extra))

    @property
    def LANGS(self) -> tuple[str, ...]:
        from lab.games.daitenka.engine.text import LANGS

        return LANGS

    @property
    def BOT_FORMS(self) -> str:
        from lab.games.daitenka.schema.bots import BOT_FORMS

        return BOT_FORMS

    def bot_short(self, spec) -> str:
        from lab.games.daitenka.bots.match import parse_bot

        return parse_bot(spec).short

    def card_design(self):
        from lab.games.daitenka.design import DESIGN

        return DESIGN

    def variant_ids(self, config: dict) -> list[str]:
        from lab.games.daitenka.experiment import PATCH_SEPARATOR

        rules = [v.get("id") for v in config.get("variants") or []]
        patches = [p.get("name") for p in config.get("patches") or []]
        if patches:
            return [
                r if p == "base" else f"{r}{PATCH_SEPARATOR}{p}" for r in rules for p in patches
            ]
        return rules

    # ------------------------------------------------------------------ single games
    def prepare_scenarios(self, path, log: bool = False, pool=None) -> list:
        from lab.games.daitenka.scenario import prepare

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

    def cards(self, options, console) -> None:
        from lab.games.daitenka import cards_commands

        cards_commands.cards(options, console)

    def decks(self, options, console, warn) -> None:
        from lab.games.daitenka import cards_commands

        cards_commands.decks(options, console, warn)

    def show_rules(self, options, console) -> None:
        from lab.games.daitenka import cards_commands

        cards_commands.rules(options, console)

    @property
    def HELP(self) -> dict[str, str]:
        from lab.games.daitenka.cards.pool import BALANCE_TOLERANCE
        from lab.games.daitenka.cards_commands import KIND_HELP

        return {
            "kind": KIND_HELP,
            "deck_check": "Validate a deck file against rules.md R2 and the 30-card size: prints "
            "OK and a summary, or the problem and exit code 2; warns (exit 0) when its total "
            f"strength is more than ±{BALANCE_TOLERANCE:.0%} off the nine armies' mean.",
        }

    # ------------------------------------------------------------------ the page (lab serve)
    def page_rule_fields(self, preset: str, overrides: dict | None = None) -> list[dict]:
        from lab.games.daitenka import page

        return page.rule_fields(preset, overrides)

    def page_settings(self, form, preset: str, overrides: dict, bot: str, seed, uploaded):
        from lab.games.daitenka import page

        return page.settings(form, preset, overrides, bot, seed, uploaded)

    def page_upload(self, text: str, name: str) -> dict[str, str]:
        """A deck file: checked against the package's cards, then chosen as the person's army."""
        from lab.errors import parse_toml
        from lab.games.daitenka.cards.pool import deck_from, load_pool

        deck_from(parse_toml(text, name), name, load_pool())  # one line if it is no deck
        return {"army": f"deck:{name}"}

    def page_match(self, setup, replay_dir):
        from lab.games.daitenka.page import DaitenkaMatch

        return DaitenkaMatch(setup, replay_dir)


@functools.cache
def _armies() -> tuple[tuple[str, str], ...]:
    """(key, printed name) of the nine armies (package data: read once)."""
    from lab.games.daitenka.cards.pool import ARMIES, load_armies

    return tuple((d.key, d.name) for d in load_armies() if d.key in ARMIES)


GAME = Daitenka()
