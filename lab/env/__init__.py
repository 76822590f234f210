"""Re-exports ``lab.games.daitenka.env`` (its old path: ``import lab.env`` in docs/bots.md and examples/)."""

from lab.games.daitenka.env import *  # noqa: F403
from lab.games.daitenka.env import __all__  # noqa: F401
