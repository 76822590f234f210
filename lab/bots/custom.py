"""Re-exports ``lab.games.daitenka.bots.custom`` (its old path, used in docs/bots.md)."""

from lab.games.daitenka.bots.custom import play  # noqa: F401
