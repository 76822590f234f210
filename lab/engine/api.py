"""Re-exports ``lab.games.daitenka.engine.api`` (its old path, used in docs/bots.md)."""

from lab.games.daitenka.engine.api import *  # noqa: F403
from lab.games.daitenka.engine.api import __all__  # noqa: F401
