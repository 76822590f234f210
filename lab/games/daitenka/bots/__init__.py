"""Bots: who chooses among the legal actions. Compiled bots (random, heuristic, strong, search,
expert) are selected by a small integer spec array so one compiled match loop plays any pairing;
custom Python bots play through the engine's Python API. ``lab.games.daitenka.bots.tune`` re-tunes the heuristic
and ``lab.games.daitenka.bots.distill`` trains the strong bot."""
