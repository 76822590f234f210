"""The AEC environment class and its observation encoding (see ``lab.games.daitenka.env``).

Observation vector (float32), for the observing seat ("me") and the other ("opp"), each block
of length G = number of card types in the pool, counts by global card type: my hand, my camp
face up, face down, graveyard, field, logistics, castle; the opponent's hand cards I know of,
camp up, down, graveyard, field, logistics, castle; the top set on the field. Then scalars:
hand, deck and wall counts and castle damage of both seats, sets each played in this battle,
battle open, top set mine / theirs, its size, shape and strength, 車懸り attached, the phase
(one-hot), I lead, I moved first, leader turns begun. Nothing hidden from the seat is read.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from lab.games.daitenka.cards.pool import ARMIES, load_pool
from lab.games.daitenka.engine import layout as L
from lab.games.daitenka.engine.api import Game
from lab.games.daitenka.engine.text import SEATS
from lab.games.daitenka.rules import RuleSet

MAX_ACTIONS = L.MAXA  # the engine's legal-step buffer: no state has more
_CARD_BLOCKS = 15
_SCALARS = 8 + 2 + 6 + 6 + 3 + 1


def observation_size(n_types: int) -> int:
    return _CARD_BLOCKS * n_types + _SCALARS


def encode_observation(game: Game, seat: int, n_types: int) -> np.ndarray:
    """What ``seat`` may see of ``game`` as a vector (module docstring for the layout)."""
    view = game.view
    gt = view.card_types()
    out = np.zeros(observation_size(n_types), np.float32)
    blocks = out[: _CARD_BLOCKS * n_types].reshape(_CARD_BLOCKS, n_types)

    def counts(row, ids):
        np.add.at(blocks[row], gt, ids)

    def stack(row, ids):
        np.add.at(blocks[row], gt[ids], 1)

    for side, p in enumerate((seat, 1 - seat)):
        r = 7 * side
        if side == 0:
            counts(r, view.count_array(p, "hand"))
        else:  # the opponent's hand cards this seat knows are there
            counts(r, view.count_array(seat, "known_hand"))
        counts(r + 1, view.count_array(p, "camp_up"))
        counts(r + 2, view.count_array(p, "camp_down"))
        counts(r + 3, view.count_array(p, "graveyard"))
        counts(r + 4, view.count_array(p, "field"))
        stack(r + 5, view.stack_array(p, "logistics"))
        if view.castle_id(p) >= 0:
            blocks[r + 6, gt[view.castle_id(p)]] = 1
    stack(14, view.top_array())
    x = out[_CARD_BLOCKS * n_types :]
    k = 0
    for p in (seat, 1 - seat):
        x[k : k + 4] = (
            view.hand_count(p),
            view.deck_count(p),
            view.wall_count(p),
            view.castle_damaged(p),
        )
        k += 4
    x[k : k + 2] = view.plays(seat), view.plays(1 - seat)
    k += 2
    owner = view.top_owner
    top_n = view.top_n
    x[k : k + 6] = (
        view.open,
        owner == seat,
        owner == 1 - seat,
        top_n,
        view.top_shape,
        view.top_str if top_n else 0,
    )
    k += 6
    x[k + view.phase] = 1
    k += 6
    x[k : k + 3] = (
        view.top_kurumagakari >= 0,
        view.leader == seat and not view.open,
        view.first == seat,
    )
    x[k + 3] = view.turns
    return out


class DaitenkaEnv(AECEnv):
    """Two seats, "A" and "B". ``armies``: a pair of army keys, or None for a pair drawn from
    the reset seed; ``rules``: a preset name or a ``RuleSet``."""

    metadata = {"name": "daitenka_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        rules: RuleSet | str = "second_edition",
        armies: tuple[str, str] | None = None,
        render_mode: str | None = None,
    ):
        super().__init__()
        self.rules = RuleSet.preset(rules) if isinstance(rules, str) else rules
        self.pool = load_pool()
        self.fixed_armies = armies
        self.render_mode = render_mode
        self.n_types = len(self.pool.cards)
        self.possible_agents = list(SEATS)
        size = observation_size(self.n_types)
        self._observation_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(-1.0, 1000.0, (size,), np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (MAX_ACTIONS,), np.int8),
            }
        )
        self._action_space = gymnasium.spaces.Discrete(MAX_ACTIONS)
        self._rng = np.random.default_rng()
        self.game: Game | None = None

    def observation_space(self, agent):
        return self._observation_space

    def action_space(self, agent):
        return self._action_space

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        armies = self.fixed_armies or tuple(str(a) for a in self._rng.choice(ARMIES, 2))
        deal = int(self._rng.integers(2**63))
        self.game = Game(self.rules, armies[0], armies[1], seed=deal, pool=self.pool)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._legal = self.game.legal_actions()
        self.agent_selection = self.game.to_move
        self._set_infos()

    def legal_steps(self) -> list[str]:
        """The step texts of the legal actions of the agent to move, in action-index order."""
        return [a.text for a in self._legal]

    def _set_infos(self):
        self.infos = {a: {} for a in self.agents}
        if self.agents:
            self.infos[self.agent_selection] = {
                "legal_steps": self.legal_steps(),
                "armies": self.game.armies,
            }

    def observe(self, agent):
        seat = SEATS.index(agent)
        mask = np.zeros(MAX_ACTIONS, np.int8)
        if agent == self.agent_selection and not self.game.is_over:
            mask[: len(self._legal)] = 1
        return {
            "observation": encode_observation(self.game, seat, self.n_types),
            "action_mask": mask,
        }

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = int(action)
        if not 0 <= action < len(self._legal):
            raise ValueError(
                f"action {action} is not legal: {len(self._legal)} legal steps "
                "(see observe()['action_mask'])"
            )
        self._cumulative_rewards[agent] = 0.0
        self.game.step(self._legal[action])
        self.rewards = {a: 0.0 for a in self.agents}
        if self.game.is_over:
            winner = self.game.winner
            for a in self.agents:
                self.rewards[a] = 0.0 if winner == "draw" else (1.0 if a == winner else -1.0)
                self.terminations[a] = True
            self._legal = []
        else:
            self._legal = self.game.legal_actions()
            self.agent_selection = self.game.to_move
        self._accumulate_rewards()
        self._set_infos()
        if self.render_mode == "ansi":
            print(self.render())

    def render(self):
        if self.game is None:
            return ""
        lines = [self.game.summary()]
        if self._legal:
            lines.append(f"{self.agent_selection} to move: " + "; ".join(self.legal_steps()))
        return "\n".join(lines)

    def close(self):
        self.game = None
