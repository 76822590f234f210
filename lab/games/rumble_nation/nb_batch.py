"""The compiled batch loop: set up, play and record N games of Rumble Nation for given bots.
No I/O and no allocation; the Python facade (``batch``) owns the buffers, seeds and columns.
"""

from lab.jit import kernel
from lab.games.rumble_nation.nb_bots import choose
from lab.games.rumble_nation.nb_core import apply, legal, record, roll, setup
from lab.games.rumble_nation.nb_layout import PH_OVER, S_PHASE, S_STAGE, S_TO_MOVE, ST_ROLL


@kernel
def play_game(s, c, bots, acts, wf, ts, tot, pacts):
    """Play the game in ``s`` to its end; ``bots[p]`` is seat p's bot spec."""
    while s[S_PHASE] != PH_OVER:
        if s[S_STAGE] == ST_ROLL:
            roll(s)
            continue
        n = legal(s, c, acts)
        apply(s, c, acts[choose(s, c, acts, n, bots[s[S_TO_MOVE]], wf, ts, tot, pacts)])


@kernel
def run_batch(s, c, seeds, first, bots, acts, wf, ts, tot, pacts, results):
    """Games g = 0…len(seeds)-1: set up from seeds[g] (start player ``first``, or drawn if -1),
    play, and write the result row results[g]."""
    for g in range(seeds.shape[0]):
        setup(s, c, seeds[g], first)
        play_game(s, c, bots, acts, wf, ts, tot, pacts)
        record(s, c, results[g])
