"""Compiled match loop: play a batch of games of one matchup between two bot specs and fill
preallocated result and statistics rows. No I/O; the runner (lab.sim) owns seeds and records.
"""

from lab.bots.nb_heuristic import heuristic_pick
from lab.bots.nb_params import BOT_HEURISTIC, BOT_RANDOM, BP_KIND
from lab.bots.nb_policy import choose
from lab.engine.jit import kernel
from lab.engine.layout import *  # noqa: F403
from lab.engine.nb_actions import legal_actions
from lab.engine.nb_pick import random_pick
from lab.engine.nb_play import record, record_stats, setup
from lab.engine.nb_resolve import apply, begin_turn


@kernel
def play_game(s, c, lg, acts, wk, bots, sb, sacts):
    """Play the set-up game in ``s`` to its end; ``bots[p]`` is seat p's bot spec."""
    while s[G_PHASE] != PH_OVER:
        if s[G_PHASE] == PH_LEADER_START:
            begin_turn(s, c, lg)
        bot = bots[s[G_TO_MOVE]]
        if bot[BP_KIND] == BOT_RANDOM:
            # the same step as choose() over the listing would draw, without the listing
            random_pick(s, c, acts, wk)
            apply(s, c, lg, acts[0])
            continue
        if bot[BP_KIND] == BOT_HEURISTIC:
            # the heuristic's choice over the listing, mostly without the listing
            heuristic_pick(s, c, acts, wk, bot)
            apply(s, c, lg, acts[0])
            continue
        n = legal_actions(s, c, acts, wk)
        k = choose(s, c, lg, acts, n, wk, bot, sb, sacts)
        apply(s, c, lg, acts[k])


@kernel
def run_batch(s, c, lg, acts, wk, seeds, bots, sb, sacts, results, stats):
    """Games g = 0…len(seeds)-1: set up from seeds[g] (see lab.engine.nb_play.setup), play, record."""
    for g in range(seeds.shape[0]):
        setup(s, c, lg, seeds[g])
        play_game(s, c, lg, acts, wk, bots, sb, sacts)
        record(s, results[g])
        record_stats(s, stats[g])
