"""Former home of 大天下's engine, now ``lab.games.daitenka.engine``; kept for ``lab.engine.api`` in docs/bots.md."""
