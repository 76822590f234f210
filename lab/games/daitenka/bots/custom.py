"""Custom Python bots: any object with ``act(observation, legal_actions) -> action`` can play.

The engine plays such a bot through its Python API (slower than the compiled bots; fine for
trying an idea). ``observation`` is ``Game.observation(seat)`` — only what the seat may see
(rules.md R1) — and ``legal_actions`` the list of ``Action``; the bot returns one of them, its
step text (e.g. "A pass") or its index. Compiled bots (``BotSpec`` or a config spec such as
"heuristic") can sit on the other side. See docs/bots.md for an example.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from lab.games.daitenka.bots.match import BotSpec, parse_bot, policy
from lab.games.daitenka.bots.nb_search import SB_SIZE
from lab.games.daitenka.engine import nb_actions
from lab.games.daitenka.engine.api import Action, Game
from lab.games.daitenka.engine.layout import AW, MAXA
from lab.games.daitenka.engine.text import SEATS
from lab.errors import LabError


@runtime_checkable
class Bot(Protocol):
    def act(self, observation: dict, legal_actions: list[Action]) -> Action | str | int: ...


class _Compiled:
    """A compiled bot driven one decision at a time through the API, drawing its randomness
    from the game's play stream as the batch loop does."""

    def __init__(self, spec):
        self.spec = parse_bot(spec)
        self.packed = self.spec.pack()
        self.choose_kernel = policy(self.spec)
        self.sb = np.zeros(SB_SIZE, np.int64)
        self.acts = np.zeros((MAXA, AW), np.int64)
        self.wk = np.zeros(nb_actions.WK_SIZE, np.int64)
        self.sacts = np.zeros((MAXA, AW), np.int64)

    def choose(self, game: Game) -> Action:
        legal = game.legal_actions()  # starts a due leader turn
        s, c, lg = game.kernel_args()
        n = nb_actions.legal_actions(s, c, self.acts, self.wk)
        k = self.choose_kernel(s, c, lg, self.acts, n, self.wk, self.packed, self.sb, self.sacts)
        return legal[k]


def seat_player(bot):
    """Wrap a Python bot or a compiled bot spec as ``(game) -> action``."""
    if isinstance(bot, Bot) and not isinstance(bot, (str, dict, BotSpec)):

        def act(game: Game):
            seat = game.to_move
            return bot.act(game.observation(seat), game.legal_actions())

        return act
    compiled = _Compiled(bot)
    return compiled.choose


def play(game: Game, bot_a, bot_b, max_steps: int = 100_000) -> Game:
    """Play ``game`` to its end; each seat is a Python ``Bot`` or a compiled bot spec."""
    players = (seat_player(bot_a), seat_player(bot_b))
    for _ in range(max_steps):
        if game.is_over:
            return game
        game.legal_actions()
        seat = SEATS.index(game.to_move)
        game.step(players[seat](game))
    raise LabError(f"the game did not end within {max_steps} steps")
