"""Compiled bot dispatch: ``choose`` picks one row of the legal-action buffer for the player to
move, by the bot spec of that seat. Only ``@kernel`` code; bots read the state only through
what their seat may see (rules.md R1) and draw randomness from the game's play stream.
"""

from lab.engine.jit import kernel
from lab.engine.layout import G_RNG
from lab.engine.nb_core import rand_below

# bot spec array: [kind, parameters…]
BOT_RANDOM = 0
BOT_HEURISTIC = 1
BOT_SEARCH = 2
BP_KIND = 0
BP_SIZE = 16


@kernel
def choose(s, c, lg, acts, n, wk, bot):
    """Index of the chosen row among the ``n`` legal actions in ``acts``."""
    return rand_below(s, G_RNG, n)
