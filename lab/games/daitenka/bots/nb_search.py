"""The search bot: determinised Monte Carlo search over the seat's information set.

Each simulation copies the game, re-deals everything the seat cannot see — the opponent's unknown
hand cards together with both players' deck orders and wall stacks, each player's hidden cards
shuffled among that player's hidden places — picks a root action by UCB1, and plays the game out
with the heuristic policy. The action visited most is played. This is flat (one-level) IS-MCTS:
statistics are kept for the root actions only. The budget is a number of simulations, so a seed
gives the same decision on any machine; the search stops sooner once no other action can reach
the leader's visits in the simulations left (``decided``), which plays the same action. Hidden
cards are gathered by card type, never by where they lie, so the decision depends only on what
the seat may know (rules.md R1).
"""

import math

from lab.games.daitenka.bots.nb_buffer import (
    MAX_ROOT,
    SB_POOL,
    SB_RNG,
    SB_SIZE,  # noqa: F401
    SB_STATE,
    SB_VALUE,
    SB_VISITS,
)
from lab.games.daitenka.bots.nb_eval import WEIGHTS, win_prob
from lab.games.daitenka.bots.nb_heuristic import heuristic_choose, heuristic_pick
from lab.games.daitenka.bots.nb_params import BP_SIMS, BP_UCB
from lab.jit import hot, kernel
from lab.games.daitenka.engine import layout as L
from lab.games.daitenka.engine.nb_core import (
    copies,
    deck_card,
    deck_count,
    hand_add,
    hand_remove,
    next32,
    rand_below,
    set_deck_card,
    set_wall_card,
    wall_card,
    wall_count,
)
from lab.games.daitenka.engine.nb_resolve import apply, begin_turn

PLAYOUT_LIMIT = 2000
WIN = 1000  # a playout's worth in thousandths of a win (a draw 500, an evaluation its chance)


@kernel
def redeal_hidden(t, c, sb, q, observer):
    """Shuffle player q's hidden cards (deck, walls, and — if q is not the observer — the hand
    cards the observer does not know) among those same places."""
    nl = c[L.C_NLOC]
    m = 0
    deck_n = deck_count(t, q)
    wall_n = wall_count(t, q)
    for k in range(deck_n):
        sb[SB_POOL + m] = deck_card(t, q, k)
        m += 1
    for k in range(wall_n):
        sb[SB_POOL + m] = wall_card(t, q, k)
        m += 1
    hidden_hand = 0
    if q != observer:
        for i in range(nl):
            unknown = copies(t, q, L.PB_HAND, i) - copies(t, observer, L.PB_KNOWN, i)
            for _ in range(unknown):
                sb[SB_POOL + m] = i
                m += 1
                hidden_hand += 1
                hand_remove(t, q, i)
    # canonical order (by type) so the result depends on the multiset alone
    for x in range(1, m):
        v = sb[SB_POOL + x]
        y = x - 1
        while y >= 0 and sb[SB_POOL + y] > v:
            sb[SB_POOL + y + 1] = sb[SB_POOL + y]
            y -= 1
        sb[SB_POOL + y + 1] = v
    for x in range(m - 1, 0, -1):
        y = rand_below(sb, SB_RNG, x + 1)
        v = sb[SB_POOL + x]
        sb[SB_POOL + x] = sb[SB_POOL + y]
        sb[SB_POOL + y] = v
    k = 0
    for x in range(deck_n):
        set_deck_card(t, q, x, sb[SB_POOL + k])
        k += 1
    for x in range(wall_n):
        set_wall_card(t, q, x, sb[SB_POOL + k])
        k += 1
    for _ in range(hidden_hand):
        hand_add(t, q, sb[SB_POOL + k])
        k += 1


@hot
def seed_search_stream(s, sb):
    """Seed the search's own generator (``sb[SB_RNG]``) from the game's play stream, once per
    decision: the searches' draws then never touch the game's stream again."""
    for k in range(4):
        sb[SB_RNG + k] = next32(s, L.G_RNG)
    if sb[SB_RNG] == 0:
        sb[SB_RNG] = 1


@hot
def determinise(s, t, c, sb, p):
    """Copy the game ``s`` into ``t`` (the words play reads, ``S_PLAY``) as seat ``p`` may
    imagine it: the log off, the opponent's unknown hand cards and both players' deck orders and
    walls re-dealt from what ``p`` may know, and a fresh play stream from the search's generator
    (the step every simulation of the search and expert bots begins with)."""
    for x in range(L.S_PLAY):
        t[x] = s[x]
    t[L.G_LOG_ON] = 0
    redeal_hidden(t, c, sb, 1 - p, p)
    redeal_hidden(t, c, sb, p, p)
    for x in range(4):
        t[L.G_RNG + x] = next32(sb, SB_RNG)


@hot
def playout_value(t, c, lg, sacts, wk, bot, p, cutoff):
    """Play the heuristic (``bot``'s persona) on from ``t`` until the ``cutoff``-th leader turn
    begins (0: to the end); the position's worth to ``p`` in thousandths of a win: the search's
    playout, and the strong bot's lookahead's with a cut-off."""
    turns = 0
    steps = 0
    while t[L.G_PHASE] != L.PH_OVER and steps < PLAYOUT_LIMIT:
        if t[L.G_PHASE] == L.PH_LEADER_START:
            turns += 1
            if cutoff > 0 and turns >= cutoff:
                return int(win_prob(t, c, p, WEIGHTS) * WIN + 0.5)
            begin_turn(t, c, lg)
        heuristic_pick(t, c, sacts, wk, bot)
        apply(t, c, lg, sacts[0])
        steps += 1
    w = t[L.G_WINNER]
    if w == p:
        return WIN
    if w == 1 - p:
        return 0
    return WIN // 2


@hot
def decided(sb, n, left):
    """Whether the most visited of the ``n`` root actions stays the most visited however the
    ``left`` simulations fall: the runner-up, given them all, still has fewer visits. The
    choice is then made, and the simulations left would only cost time (a third of them, on
    average, at 400 simulations); ties on visits are broken by value, so a tie is still open."""
    if n < 2:
        return True
    top = 0
    second = 0
    for k in range(n):
        v = sb[SB_VISITS + k]
        if v > top:
            second = top
            top = v
        elif v > second:
            second = v
    return top > second + left


@kernel
def search_choose(s, c, lg, acts, n, wk, bot, sb, sacts):
    p = s[L.G_TO_MOVE]
    if n <= 1:
        return 0
    if n > MAX_ROOT:
        return heuristic_choose(s, c, acts, n, bot)
    seed_search_stream(s, sb)
    for k in range(n):
        sb[SB_VISITS + k] = 0
        sb[SB_VALUE + k] = 0
    sims = bot[BP_SIMS]
    ucb = bot[BP_UCB] / 100.0
    t = sb[SB_STATE : SB_STATE + L.S_SIZE]
    for sim in range(sims):
        determinise(s, t, c, sb, p)
        # UCB1 over the root actions (first unvisited ones in order)
        pick = -1
        if sim < n:
            pick = sim
        else:
            best = -1.0
            lt = math.log(sim)
            for k in range(n):
                v = sb[SB_VISITS + k]
                u = sb[SB_VALUE + k] / (2.0 * v) + ucb * math.sqrt(lt / v)
                if u > best:
                    best = u
                    pick = k
        apply(t, c, lg, acts[pick])
        sb[SB_VISITS + pick] += 1
        # half-points: a win 2, a draw 1
        sb[SB_VALUE + pick] += playout_value(t, c, lg, sacts, wk, bot, p, 0) // (WIN // 2)
        # the search's draws come from its own generator, so stopping here leaves the game's
        # play stream, and every later decision, as the full budget would
        if decided(sb, n, sims - 1 - sim):
            break
    best = 0
    for k in range(1, n):
        if sb[SB_VISITS + k] > sb[SB_VISITS + best] or (
            sb[SB_VISITS + k] == sb[SB_VISITS + best] and sb[SB_VALUE + k] > sb[SB_VALUE + best]
        ):
            best = k
    return best
