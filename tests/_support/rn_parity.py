"""Play seeded Rumble Nation games and print every result row and a facade game's steps as JSON
(run with and without NUMBA_DISABLE_JIT=1; the two outputs must be identical)."""

import json
import sys

from lab.games.rumble_nation import PRESETS, new_game, seed_words, seeds_for
from lab.games.rumble_nation.batch import play_rows


def games(scale: int) -> dict:
    out = {}
    for k, (name, rules) in enumerate(PRESETS.items()):
        n = rules.players
        out[f"{name}/random"] = play_rows(rules, ["random"] * n, seeds_for(40 * scale, k)).tolist()
        mixed = ["heuristic"] + ["random"] * (n - 1)
        out[f"{name}/heuristic"] = play_rows(rules, mixed, seeds_for(scale, k + 10)).tolist()
        g = new_game(rules, seed_words(k))
        while not g.is_over:
            acts = g.legal_actions()
            g.step(acts[len(g.history) % len(acts)])
        out[f"{name}/facade"] = g.history + [str(g.result())]
    search = [{"kind": "search", "simulations": 2}, "heuristic"]
    out["base_2p/search"] = play_rows(PRESETS["base_2p"], search, seeds_for(scale, 99)).tolist()
    return out


if __name__ == "__main__":
    json.dump(games(int(sys.argv[1])), sys.stdout)
