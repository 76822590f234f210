"""A compiled bot choosing one decision of an API ``Game`` (for `lab play` and notebooks).

The batch loop (``lab.games.daitenka.bots.nb_match``) lets a bot draw its randomness from the game's own play
stream. An interactive game must instead be reproducible from its list of steps alone (a replay
file, a scenario), so here the bot decides on a *copy* of the state whose play-stream words come
from the caller's generator: the game's stream is consumed only by the rules' random effects, and
stepping the recorded steps again (no bot involved) gives the same game. The policy itself is the
batch runs' ``lab.games.daitenka.bots.nb_policy.choose``, and like them it reads only what its seat may see.
"""

from __future__ import annotations

import numpy as np

from lab.games.daitenka.bots.match import BotSpec, parse_bot, policy
from lab.games.daitenka.bots.nb_search import SB_SIZE
from lab.games.daitenka.engine import nb_actions
from lab.games.daitenka.engine.api import Action, Game
from lab.games.daitenka.engine.layout import AW, LW, MAXA
from lab.errors import LabError


class BotPlayer:
    """One bot seat: its spec, its own random stream and reusable buffers."""

    def __init__(self, spec: BotSpec | str | dict, rng: np.random.Generator | int | None = None):
        self.spec = parse_bot(spec)
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self._bot = self.spec.pack()
        self._choose = policy(self.spec)
        self._acts = np.zeros((MAXA, AW), np.int64)
        self._wk = np.zeros(nb_actions.WK_SIZE, np.int64)
        self._lg = np.zeros((1, LW), np.int64)
        self._sb = np.zeros(SB_SIZE, np.int64)
        self._sacts = np.zeros((MAXA, AW), np.int64)

    def choose(self, game: Game) -> Action:
        """The bot's decision for the player to move (begins a due leader turn on ``game``);
        ``game`` itself is not changed otherwise and its random stream is not touched."""
        legal = game.legal_actions()
        if not legal:
            raise LabError("the game is over; there is no decision to take")
        s = game.state_for_bot(self.rng.integers(1, 2**32, size=4, dtype=np.int64))
        _, c, _ = game.kernel_args()
        n = nb_actions.legal_actions(s, c, self._acts, self._wk)
        k = self._choose(s, c, self._lg, self._acts, n, self._wk, self._bot, self._sb, self._sacts)
        row = tuple(int(x) for x in self._acts[k])
        for a in legal:
            if a.row == row:
                return a
        raise RuntimeError(f"bot chose row {row}, which is not among the game's legal actions")


def bot_action(
    game: Game,
    spec: BotSpec | str | dict = "heuristic",
    rng: np.random.Generator | int | None = None,
) -> Action:
    """The action ``spec``'s bot takes in ``game`` now (see ``BotPlayer``)."""
    return BotPlayer(spec, rng).choose(game)


__all__ = ["BotPlayer", "bot_action"]
