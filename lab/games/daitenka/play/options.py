"""What one `lab play` match is set up with, and reading it from the command line or the
play-again prompt: armies, bot, rules preset and toggles, seed. One-line ``LabError``s only.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field, replace

import numpy as np

from lab.games.daitenka.bots.match import BotSpec, parse_bot
from lab.games.daitenka.cards.pool import ARMIES, CardPool, Deck, load_army, pool_from
from lab.games.daitenka.rules import DEFAULT_PRESET, PRESETS, RuleSet
from lab.schema.base import parse_seed
from lab.games.daitenka.schema.bots import bot_from_text, bot_text

DEFAULT_ARMY = "oda"
DEFAULT_BOT = "heuristic"


def parse_bot_option(text: str) -> BotSpec:
    """A --bot value (or the play-again prompt's bot=), in the lab's one bot grammar."""
    return bot_from_text(text, "--bot")


@dataclass(frozen=True)
class PlaySettings:
    """One match's set-up. ``army`` is the human's (seat A), ``vs`` the bot's (seat B)."""

    army: str = DEFAULT_ARMY
    vs: str = ""  # "" = chosen at random (by the seed) among the other armies
    bot: BotSpec = field(default_factory=lambda: parse_bot(DEFAULT_BOT))
    preset: str = DEFAULT_PRESET
    overrides: tuple[tuple[str, str], ...] = ()  # toggles on top of the preset, as typed
    seed: int | None = None  # None = a fresh random seed for each match
    cards: tuple = ()  # extra card files as data (lab.games.daitenka.cards.pool.CardSource), from --cards

    @property
    def pool(self) -> CardPool:
        return pool_from(self.cards)

    @property
    def rules(self) -> RuleSet:
        return RuleSet.preset(self.preset).with_overrides(dict(self.overrides))

    def check(self) -> "PlaySettings":
        """Fail now (one line) on an unknown army, preset or toggle."""
        self.rules  # noqa: B018 — validates preset and toggles
        load_army(self.army, self.pool)
        if self.vs:
            load_army(self.vs, self.pool)
        return self

    def with_toggles(self, changes: dict[str, str]) -> "PlaySettings":
        """Settings with toggles and/or session keys (army, vs, bot, rules, seed) changed.
        A new ``rules`` preset drops the earlier toggles."""
        changes = dict(changes)
        new = self
        if "rules" in changes or "preset" in changes:
            name = changes.pop("rules", None) or changes.pop("preset")
            changes.pop("preset", None)
            RuleSet.preset(name)
            new = replace(new, preset=name, overrides=())
        for key in ("army", "vs"):
            if key in changes:
                value = changes.pop(key)
                if key == "vs" and value in ("random", "?"):
                    value = ""
                if value:
                    load_army(value, self.pool)
                new = replace(new, **{key: value})
        if "bot" in changes:
            new = replace(new, bot=parse_bot_option(changes.pop("bot")))
        if "seed" in changes:
            value = changes.pop("seed")
            if value in ("random", "?"):
                new = replace(new, seed=None)
            else:
                new = replace(new, seed=parse_seed(value))
        if changes:
            merged = dict(new.overrides) | changes
            RuleSet.preset(new.preset).with_overrides(merged)  # validate before keeping
            new = replace(new, overrides=tuple(merged.items()))
        return new


def fresh_seed() -> int:
    return secrets.randbelow(2**31)


def pick_vs(army: Deck, seed: int) -> str:
    """The bot's army when none is named: another of the nine, chosen by the seed."""
    others = [a for a in ARMIES if a != army.key] or list(ARMIES)
    return others[int(np.random.default_rng([seed, 0x5E1]).integers(len(others)))]


SESSION_KEYS = ("army", "vs", "bot", "rules", "seed")

__all__ = [
    "PlaySettings",
    "parse_bot_option",
    "bot_text",
    "fresh_seed",
    "pick_vs",
    "SESSION_KEYS",
    "PRESETS",
]
