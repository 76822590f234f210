"""The strong bot's lookahead: its few best steps, tried in imagined games, when they are close.

The distilled policy (``nb_strong``) scores every legal step; when the runner-up is within
``margin`` of the best, the best ``candidates`` steps are each played in the same
``simulations`` determinised worlds (``nb_search.determinise``: everything the seat cannot see
re-dealt from what it may know), the balanced heuristic plays on until the ``cutoff``-th leader
turn begins, and the fitted evaluation (``nb_eval``) scores the position there — the expert's
playout, flat over a handful of steps. Every step meets the same worlds (common random
numbers), so a difference between two steps is not a difference between two deals. The step
with the best total is played; among equals the policy's order decides.
"""

from lab.games.daitenka.bots.nb_buffer import (
    MAX_CAND,
    SB_CAND,
    SB_CAND_SUM,
    SB_STATE,
    SB_WORLD,
    SB_Z,
)
from lab.games.daitenka.bots.nb_params import BP_CAND, BP_CUTOFF, BP_SIMS
from lab.games.daitenka.bots.nb_search import determinise, playout_value, seed_search_stream
from lab.games.daitenka.engine import layout as L
from lab.games.daitenka.engine.nb_resolve import apply
from lab.jit import hot

Z_SCALE = 1.0e6  # policy scores are kept in the int64 scratch buffer ×10⁶
_TAKEN = -(1 << 62)


@hot
def _pick_candidates(sb, n, floor, width):
    """Write into sb[SB_CAND…] the rows of the ``width`` highest scores at or above ``floor``
    (highest first, the first among equals); return how many."""
    m = 0
    for j in range(width):
        best = -1
        best_z = _TAKEN
        for k in range(n):
            z = sb[SB_Z + k]
            if z > best_z:
                best_z = z
                best = k
        if best < 0 or best_z < floor:
            break
        sb[SB_CAND + j] = best
        sb[SB_CAND_SUM + j] = 0
        sb[SB_Z + best] = _TAKEN
        m += 1
    return m


@hot
def lookahead(s, c, lg, acts, n, wk, bot, sb, sacts, floor):
    """The row to play among the candidates at or above ``floor`` (policy scores ×10⁶ in
    sb[SB_Z…]); -1 when fewer than two qualify."""
    width = bot[BP_CAND]
    if width > MAX_CAND:
        width = MAX_CAND
    m = _pick_candidates(sb, n, floor, width)
    if m < 2:
        return -1
    p = s[L.G_TO_MOVE]
    seed_search_stream(s, sb)
    world = sb[SB_WORLD : SB_WORLD + L.S_SIZE]
    t = sb[SB_STATE : SB_STATE + L.S_SIZE]
    cutoff = bot[BP_CUTOFF]
    for _ in range(bot[BP_SIMS]):
        determinise(s, world, c, sb, p)
        for j in range(m):
            for x in range(L.S_PLAY):
                t[x] = world[x]
            apply(t, c, lg, acts[sb[SB_CAND + j]])
            sb[SB_CAND_SUM + j] += playout_value(t, c, lg, sacts, wk, bot, p, cutoff)
    best = 0
    for j in range(1, m):
        if sb[SB_CAND_SUM + j] > sb[SB_CAND_SUM + best]:
            best = j
    return sb[SB_CAND + best]
