"""The AEC environment class and its observation encoding (see ``lab.env``).

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

from lab.cards.pool import ARMIES, load_pool
from lab.engine import layout as L
from lab.engine.api import Game
from lab.engine.text import SEATS
from lab.rules import RuleSet

MAX_ACTIONS = L.MAXA  # the engine's legal-step buffer: no state has more
_CARD_BLOCKS = 15
_SCALARS = 8 + 2 + 6 + 6 + 3 + 1


def observation_size(n_types: int) -> int:
    return _CARD_BLOCKS * n_types + _SCALARS


def encode_observation(game: Game, seat: int, n_types: int) -> np.ndarray:
    """What ``seat`` may see of ``game`` as a vector (module docstring for the layout)."""
    s, c = game.s, game.c
    n = int(c[L.C_NLOC])
    gt = c[L.C_GTYPE:L.C_GTYPE + n]
    out = np.zeros(observation_size(n_types), np.float32)
    blocks = out[:_CARD_BLOCKS * n_types].reshape(_CARD_BLOCKS, n_types)

    def counts(row, base):
        np.add.at(blocks[row], gt, s[base:base + n])

    def stack(row, base, k):
        np.add.at(blocks[row], gt[s[base:base + k]], 1)

    for side, p in enumerate((seat, 1 - seat)):
        b = L.H_SIZE + p * L.P_SIZE
        r = 7 * side
        if side == 0:
            counts(r, b + L.PB_HAND)
        else:  # the opponent's hand cards this seat knows are there
            counts(r, L.H_SIZE + seat * L.P_SIZE + L.PB_KNOWN)
        counts(r + 1, b + L.PB_UP)
        counts(r + 2, b + L.PB_DOWN)
        counts(r + 3, b + L.PB_GRAVE)
        counts(r + 4, b + L.PB_FIELD)
        stack(r + 5, b + L.PB_LOGI, int(s[b + L.PB_LOGI_N]))
        if s[b + L.PB_CASTLE] >= 0:
            blocks[r + 6, gt[s[b + L.PB_CASTLE]]] = 1
    stack(14, L.G_TOP_CARDS, int(s[L.G_TOP_N]))
    x = out[_CARD_BLOCKS * n_types:]
    k = 0
    for p in (seat, 1 - seat):
        b = L.H_SIZE + p * L.P_SIZE
        walls = int(s[b + L.PB_WALL_N]) + (s[b + L.PB_CASTLE] >= 0)
        x[k:k + 4] = (s[b + L.PB_HAND_N], s[b + L.PB_DECK_N], walls, s[b + L.PB_CASTLE_DMG])
        k += 4
    x[k:k + 2] = s[L.G_PLAYS + seat], s[L.G_PLAYS + 1 - seat]
    k += 2
    owner = int(s[L.G_TOP_OWNER])
    x[k:k + 6] = (s[L.G_OPEN], owner == seat, owner == 1 - seat, s[L.G_TOP_N], s[L.G_TOP_SHAPE],
                  s[L.G_TOP_STR] if s[L.G_TOP_N] else 0)
    k += 6
    x[k + int(s[L.G_PHASE])] = 1
    k += 6
    x[k:k + 3] = (s[L.G_TOP_KURUMAGAKARI] >= 0, s[L.G_LEADER] == seat and not s[L.G_OPEN],
                  s[L.G_FIRST] == seat)
    x[k + 3] = s[L.G_TURNS]
    return out


class DaitenkaEnv(AECEnv):
    """Two seats, "A" and "B". ``armies``: a pair of army keys, or None for a pair drawn from
    the reset seed; ``rules``: a preset name or a ``RuleSet``."""

    metadata = {"name": "daitenka_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, rules: RuleSet | str = "second_edition",
                 armies: tuple[str, str] | None = None, render_mode: str | None = None):
        super().__init__()
        self.rules = RuleSet.preset(rules) if isinstance(rules, str) else rules
        self.pool = load_pool()
        self.fixed_armies = armies
        self.render_mode = render_mode
        self.n_types = len(self.pool.cards)
        self.possible_agents = list(SEATS)
        size = observation_size(self.n_types)
        self._observation_space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(-1.0, 1000.0, (size,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (MAX_ACTIONS,), np.int8),
        })
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
            self.infos[self.agent_selection] = {"legal_steps": self.legal_steps(),
                                                "armies": self.game.armies}

    def observe(self, agent):
        seat = SEATS.index(agent)
        mask = np.zeros(MAX_ACTIONS, np.int8)
        if agent == self.agent_selection and not self.game.is_over:
            mask[:len(self._legal)] = 1
        return {"observation": encode_observation(self.game, seat, self.n_types),
                "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = int(action)
        if not 0 <= action < len(self._legal):
            raise ValueError(f"action {action} is not legal: {len(self._legal)} legal steps "
                             "(see observe()['action_mask'])")
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
