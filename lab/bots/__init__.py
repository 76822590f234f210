"""Former home of 大天下's bots, now ``lab.games.daitenka.bots``; kept for the paths docs/bots.md and examples/ use."""
