"""Named parameter sets of the heuristic bot (and of the search and expert bots' playouts).

A persona is a dict of the parameters of ``lab.games.daitenka.bots.nb_params`` by name. ``balanced`` is the
default heuristic; ``aggressive`` values broken walls over cards, spends ∞ early and leads big
sets; ``defensive`` guards its walls, holds ∞ back, and reaches for tactics, castles and 見送り.
``tuned`` is what CMA-ES self-play found (``lab.games.daitenka.bots.tune``; the run is recorded in
docs/bots.md): it guards its walls above all, hardly counts its cards, leads small sets, and
reaches for tactics, castles and gun fire.
"""

from lab.games.daitenka.bots import nb_params as P

PARAMS = {
    "wall_gain": P.BP_WALL_GAIN,
    "wall_loss": P.BP_WALL_LOSS,
    "card": P.BP_CARD,
    "inf_reserve": P.BP_INF_RESERVE,
    "tactic": P.BP_TACTIC,
    "miokuri": P.BP_MIOKURI,
    "fire": P.BP_FIRE,
    "mulligan": P.BP_MULLIGAN,
    "return_min": P.BP_RETURN_MIN,
    "build": P.BP_BUILD,
    "big": P.BP_BIG,
    "simulations": P.BP_SIMS,
    "exploration": P.BP_UCB,
    "widen": P.BP_WIDEN,
    "depth": P.BP_DEPTH,
    "cutoff": P.BP_CUTOFF,
    "candidates": P.BP_CAND,
    "margin": P.BP_MARGIN,
}

PERSONAS = {
    "balanced": {
        "wall_gain": 300,
        "wall_loss": 300,
        "card": 25,
        "inf_reserve": 200,
        "tactic": 150,
        "miokuri": -250,
        "fire": 50,
        "mulligan": 1,
        "return_min": 5,
        "build": 120,
        "big": 40,
    },
    "aggressive": {
        "wall_gain": 500,
        "wall_loss": 200,
        "card": 15,
        "inf_reserve": 0,
        "tactic": 0,
        "miokuri": -800,
        "fire": -100,
        "mulligan": 0,
        "return_min": 3,
        "build": 0,
        "big": 120,
    },
    "defensive": {
        "wall_gain": 200,
        "wall_loss": 500,
        "card": 35,
        "inf_reserve": 400,
        "tactic": 400,
        "miokuri": 100,
        "fire": 200,
        "mulligan": 1,
        "return_min": 6,
        "build": 300,
        "big": 0,
    },
    "tuned": {
        "wall_gain": 126,
        "wall_loss": 1000,
        "card": 0,
        "inf_reserve": 301,
        "tactic": 800,
        "miokuri": 34,
        "fire": 800,
        "mulligan": 1,
        "return_min": 0,
        "build": 800,
        "big": -200,
    },
}
SEARCH_DEFAULTS = {"simulations": 400, "exploration": 70}
# the expert's iterations per decision, UCB1 constant ×100, children per √visit ×100, deepest
# tree node (0: no limit), playouts cut at their k-th leader turn and scored by the fitted
# evaluation (0: played to the end), the persona of its playouts; time_ms (0: none) stops a
# decision early. Chosen on paired deals against search(400) (docs/bots.md): the cut-off at
# the first leader turn plays stronger and ~4× faster than full playouts, and with it a smaller
# exploration constant and slower widening scored +2.9 points more
EXPERT_DEFAULTS = {
    "simulations": 5000,
    "exploration": 45,
    "widen": 150,
    "depth": 0,
    "cutoff": 1,
    "time_ms": 0,
    "persona": "balanced",
}
# the strong bot's lookahead: when the runner-up's policy score is within `margin` (×100, in
# log-odds) of the best, its best `candidates` steps each meet the same `simulations` imagined
# worlds, played by the balanced heuristic to the `cutoff`-th leader turn and scored by the
# fitted evaluation (lab.games.daitenka.bots.nb_lookahead)
STRONG_DEFAULTS = {"simulations": 2, "cutoff": 1, "candidates": 2, "margin": 100}
