"""Compiled bot dispatch: ``choose`` picks one row of the legal-action buffer for the player to
move, by the bot spec of that seat. Only ``@kernel`` code; bots read the state only through
what their seat may see (rules.md R1) and draw randomness from the game's play stream.
"""

from lab.games.daitenka.bots.nb_buffer import SB_SIZE  # noqa: F401  (the scratch buffer every caller allocates)
from lab.games.daitenka.bots.nb_expert import expert_choose
from lab.games.daitenka.bots.nb_heuristic import heuristic_choose
from lab.games.daitenka.bots.nb_search import search_choose
from lab.games.daitenka.bots.nb_strong import strong_choose
from lab.games.daitenka.bots.nb_params import (
    BOT_EXPERT,
    BOT_HEURISTIC,
    BOT_SEARCH,
    BOT_STRONG,
    BP_KIND,
)
from lab.jit import kernel
from lab.games.daitenka.engine.layout import G_RNG
from lab.games.daitenka.engine.nb_core import rand_below


@kernel
def choose_basic(s, c, lg, acts, n, wk, bot, sb, sacts):
    """``choose`` for the random and heuristic bots only: a run without search, expert or strong
    bots compiles none of them (lab.sim.warmup)."""
    if bot[BP_KIND] == BOT_HEURISTIC:
        return heuristic_choose(s, c, acts, n, bot)
    return rand_below(s, G_RNG, n)


@kernel
def choose(s, c, lg, acts, n, wk, bot, sb, sacts):
    """Index of the chosen row among the ``n`` legal actions in ``acts``."""
    kind = bot[BP_KIND]
    if kind == BOT_HEURISTIC:
        return heuristic_choose(s, c, acts, n, bot)
    if kind == BOT_STRONG:
        return strong_choose(s, c, lg, acts, n, wk, bot, sb, sacts)
    if kind == BOT_SEARCH:
        return search_choose(s, c, lg, acts, n, wk, bot, sb, sacts)
    if kind == BOT_EXPERT:
        return expert_choose(s, c, lg, acts, n, wk, bot, sb, sacts)
    return rand_below(s, G_RNG, n)
