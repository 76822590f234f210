"""Play seeded random games and print their event logs as JSON (run with and without JIT)."""

import json
import sys

from lab.games.daitenka.cards.pool import ARMIES
from lab.games.daitenka.engine.api import play_random_game
from lab.games.daitenka.rules import PRESETS


def games(per_preset: int):
    out = {}
    for preset in PRESETS:
        for k in range(per_preset):
            a, b = ARMIES[k % len(ARMIES)], ARMIES[(k * 4 + 3) % len(ARMIES)]
            g = play_random_game(preset, a, b, seed=1000 + k, log=True)
            out[f"{preset}/{k}"] = g.events().tolist() + [[g.decisions, int(g.s.sum())]]
    return out


if __name__ == "__main__":
    json.dump(games(int(sys.argv[1])), sys.stdout)
