"""A PettingZoo AEC environment over the engine, for reinforcement learning (optional extra).

``lab.games.daitenka.env.env(...)`` returns ``DaitenkaEnv``: two agents, "A" and "B", take turns as the engine
says. An agent observes only what its seat may see (rules.md R1; the same information as
``Game.observation`` gives a custom bot) as a fixed-length vector indexed by *global* card type,
so one policy can play every army; ``action_mask`` marks the legal steps, and an action is an
index into the game's list of legal steps (``legal_actions()``, whose texts ``infos`` carries).
The winner gets +1, the loser -1, a draw 0. This module holds no rule and no bot; it needs
``pip install 'daitenka-lab[rl]'`` (PettingZoo and Gymnasium).
"""

from __future__ import annotations

from lab.errors import LabError

try:
    from lab.games.daitenka.env.daitenka import (
        MAX_ACTIONS,
        DaitenkaEnv,
        encode_observation,
        observation_size,
    )
except ModuleNotFoundError as e:  # pragma: no cover - exercised only without the extra
    if e.name not in ("pettingzoo", "gymnasium"):
        raise
    raise LabError(
        f"lab.games.daitenka.env needs {e.name}: pip install 'daitenka-lab[rl]'"
    ) from None


def env(**kwargs) -> DaitenkaEnv:
    """A new environment (keyword arguments: see ``DaitenkaEnv``)."""
    return DaitenkaEnv(**kwargs)


__all__ = ["DaitenkaEnv", "MAX_ACTIONS", "encode_observation", "env", "observation_size"]
