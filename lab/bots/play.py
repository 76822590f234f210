"""Re-exports ``lab.games.daitenka.bots.play`` (its old path, used in docs/bots.md and examples/)."""

from lab.games.daitenka.bots.play import *  # noqa: F403
from lab.games.daitenka.bots.play import __all__  # noqa: F401
