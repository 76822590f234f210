"""Rumble Nation (rumble-nation.md RN1–RN8): a 2–4 player dice-placement game, hosted by the lab
as its second game.

The package's public face, roughly the protocol the runner will speak once games are registered:
``seats(rules)``, ``PRESETS`` and ``DEFAULT_PRESET``, ``new_game(rules, seed_words, first_seat)``
(a ``Game`` with ``legal_actions``, ``step``, ``observation``, ``result``), ``play_batch(rules,
bots, seed_words_array)`` and ``record_columns(rules)``, and ``run_scenario(path)``. The rules live
in the ``nb_*`` kernels; docs/rumble_nation.md describes rules, choices, scenarios and columns.
"""

from lab.games.rumble_nation.batch import RNBot, parse_bot, play_batch, record_columns, seeds_for
from lab.games.rumble_nation.board import AREAS, load_map
from lab.games.rumble_nation.game import Action, Game, IllegalAction, new_game, seats, seed_words
from lab.games.rumble_nation.rules import DEFAULT as DEFAULT_PRESET
from lab.games.rumble_nation.rules import PRESETS, RNRules
from lab.games.rumble_nation.scenario import run_scenario

GAME = "rumble_nation"

__all__ = [
    "AREAS",
    "Action",
    "DEFAULT_PRESET",
    "GAME",
    "Game",
    "IllegalAction",
    "PRESETS",
    "RNBot",
    "RNRules",
    "load_map",
    "new_game",
    "parse_bot",
    "play_batch",
    "record_columns",
    "run_scenario",
    "seats",
    "seed_words",
    "seeds_for",
]
