"""Compiled match loop: play a batch of games of one matchup between two bot specs and fill
preallocated result and statistics rows. No I/O; the runner (lab.sim) owns seeds and records.
"""

from lab.games.daitenka.bots.nb_heuristic import heuristic_pick
from lab.games.daitenka.bots.nb_params import BOT_HEURISTIC, BOT_RANDOM, BP_KIND
from lab.games.daitenka.bots.nb_policy import choose
from lab.jit import hot, kernel
from lab.games.daitenka.engine import layout as L
from lab.games.daitenka.engine.nb_actions import legal_actions
from lab.games.daitenka.engine.nb_pick import random_pick
from lab.games.daitenka.engine.nb_play import record, record_stats, setup
from lab.games.daitenka.engine.nb_resolve import apply, begin_turn


@hot
def _take_turn_basic(s, c, lg, acts, wk, bots):
    """Begin a due leader turn; a random or heuristic seat moves (True) — the same step as
    choose() over the listing would take, mostly without the listing — else False."""
    if s[L.G_PHASE] == L.PH_LEADER_START:
        begin_turn(s, c, lg)
    kind = bots[s[L.G_TO_MOVE]][BP_KIND]
    if kind == BOT_RANDOM:
        random_pick(s, c, acts, wk)
    elif kind == BOT_HEURISTIC:
        heuristic_pick(s, c, acts, wk, bots[s[L.G_TO_MOVE]])
    else:
        return False
    apply(s, c, lg, acts[0])
    return True


# The game loops are inlined into the batch loops (hot), not kernels of their own: each kernel
# library links and re-optimises everything it calls, and the loops call the whole engine — as
# kernels they cost the cold start a second pass over it (run_batch_basic 4.7 → 2.5 s) for no
# speed. Called from Python (lab.games.daitenka.bots.match.finish) they compile on their own, as before.
@hot
def play_game(s, c, lg, acts, wk, bots, sb, sacts):
    """Play the set-up game in ``s`` to its end; ``bots[p]`` is seat p's bot spec."""
    while s[L.G_PHASE] != L.PH_OVER:
        if not _take_turn_basic(s, c, lg, acts, wk, bots):
            n = legal_actions(s, c, acts, wk)
            apply(s, c, lg, acts[choose(s, c, lg, acts, n, wk, bots[s[L.G_TO_MOVE]], sb, sacts)])


@hot
def play_game_basic(s, c, lg, acts, wk, bots, sb, sacts):
    """``play_game`` for random and heuristic seats only (nothing of the search or the strong
    bot compiled)."""
    while s[L.G_PHASE] != L.PH_OVER:
        _take_turn_basic(s, c, lg, acts, wk, bots)


@kernel
def run_batch(s, c, lg, acts, wk, seeds, bots, sb, sacts, results, stats):
    """Games g = 0…len(seeds)-1: set up from seeds[g] (see lab.games.daitenka.engine.nb_play.setup), play,
    record."""
    for g in range(seeds.shape[0]):
        setup(s, c, lg, seeds[g])
        play_game(s, c, lg, acts, wk, bots, sb, sacts)
        record(s, results[g])
        record_stats(s, stats[g])


@kernel
def run_batch_basic(s, c, lg, acts, wk, seeds, bots, sb, sacts, results, stats):
    """``run_batch`` for random, heuristic and strong seats only."""
    for g in range(seeds.shape[0]):
        setup(s, c, lg, seeds[g])
        play_game_basic(s, c, lg, acts, wk, bots, sb, sacts)
        record(s, results[g])
        record_stats(s, stats[g])
