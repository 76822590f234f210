"""Set-up (R3) and whole-game loops with the compiled random bot.

``setup`` deals a game from the context's deck lists with the deal stream; ``play_random`` plays
it out choosing uniformly among the distinct legal decisions with the play stream; ``run_random``
plays a batch and fills preallocated result rows. Only ``@njit`` kernels; no I/O.
"""

import numpy as np
from lab.engine.jit import hot, kernel

from lab.engine.layout import *  # noqa: F403
from lab.engine.nb_actions import WK_SIZE
from lab.engine.nb_core import deal_opening, deck_push, log_ev, pb, stat, wall_total
from lab.engine.nb_pick import random_pick
from lab.engine.nb_resolve import apply, begin_turn, next_mulligan, shuffle_deck
from lab.cards.vocab import Effect, Trigger
from lab.rules import R_FIRST, R_INITIAL_HAND, R_LOGISTICS, R_MULLIGAN, R_WALLS


@kernel
def _deal_stack(s, c, p, at, count, n_aside):
    """Deal ``count`` non-castle cards from the deck top onto the stack at ``at`` (walls or
    logistics); castles met on the way are set aside (R3.1). Returns the new aside count."""
    b = pb(p)
    dealt = 0
    while dealt < count and s[b + PB_DECK_N] > 0:
        k = s[b + PB_DECK_N] - 1
        s[b + PB_DECK_N] = k
        i = s[b + PB_DECK + k]
        if c[C_FLAGS + i] & F_CASTLE:
            s[SCRATCH + n_aside] = i
            n_aside += 1
        else:
            s[at + dealt] = i
            dealt += 1
    return dealt, n_aside


T_SETUP = int(Trigger.SETUP)
E_EXTRA_OPENING = int(Effect.EXTRA_OPENING)


@kernel
def _credit_setup_ability(s, c, lg, p):
    """Count the 畿内の覇者-style card whose set-up effect gave p a larger opening hand."""
    for k in range(c[C_DECK_N + p]):
        i = c[C_DECK + p * DECK_CAP + k]
        for q in range(4):
            r = C_ROWS + i * 16 + q * 4
            if c[r] == T_SETUP and c[r + 1] == E_EXTRA_OPENING:
                stat(s, ST_TRIG + q, i, 1)
                log_ev(s, lg, EV_TRIGGER, p, i, q, 0)
                return


@kernel
def setup(s, c, lg, seeds):
    """A new game: shuffle, deal walls (and legacy logistics), opening hands, first player,
    then the mulligan decisions if the rule is on. ``seeds``: 4 deal words for each seat's deck
    (so a seat swap can give each army the same shuffle), then 4 play words."""
    log_on = s[G_LOG_ON]
    s[:] = 0
    s[G_LOG_ON] = log_on
    s[G_WINNER] = -1
    s[G_TOP_KUR] = -1
    s[G_TOP_OWNER] = -1
    for k in range(4):
        s[G_DRNG + k] = seeds[k]
        s[G_DRNG_B + k] = seeds[4 + k]
        s[G_RNG + k] = seeds[8 + k]
    for p in range(2):
        b = pb(p)
        s[b + PB_CASTLE] = -1
        n = c[C_DECK_N + p]
        for k in range(n):
            s[b + PB_DECK + k] = c[C_DECK + p * DECK_CAP + k]
        s[b + PB_DECK_N] = n
        stream = G_DRNG if p == 0 else G_DRNG_B
        shuffle_deck(s, p, stream)
        n_aside = 0
        walls, n_aside = _deal_stack(s, c, p, b + PB_WALLS, c[C_RULES + R_WALLS], n_aside)
        s[b + PB_WALL_N] = walls
        if c[C_RULES + R_LOGISTICS] != 0:
            logi, n_aside = _deal_stack(s, c, p, b + PB_LOGI, 3, n_aside)
            s[b + PB_LOGI_N] = logi
        if n_aside > 0:
            for k in range(n_aside):
                deck_push(s, p, s[SCRATCH + k])
            shuffle_deck(s, p, stream)
        deal_opening(s, p, c[C_RULES + R_INITIAL_HAND] + c[C_EXTRA_OPEN + p])
        if c[C_EXTRA_OPEN + p] > 0:
            _credit_setup_ability(s, c, lg, p)
    first = c[C_RULES + R_FIRST]
    if first < 0:
        # a function of the deal alone, symmetric in the two seats' deal words: the same deal
        # gives the same first seat under every variant, and a seat swap (the words exchanged)
        # hands the first turn to the other army
        first = (seeds[0] ^ seeds[4]) & 1
    s[G_FIRST] = first
    s[G_LEADER] = first
    s[G_TO_MOVE] = first
    if c[C_RULES + R_MULLIGAN] != 0:
        next_mulligan(s, c, 0)
    else:
        s[G_PHASE] = PH_LEADER_START


@hot
def step_random(s, c, lg, acts, wk):
    """One decision by the random bot (uniform over distinct legal steps). Returns False once
    the game is over."""
    if s[G_PHASE] == PH_OVER:
        return False
    if s[G_PHASE] == PH_LEADER_START:
        begin_turn(s, c, lg)
    random_pick(s, c, acts, wk)
    apply(s, c, lg, acts[0])
    return s[G_PHASE] != PH_OVER


@hot
def play_random(s, c, lg, acts, wk):
    while step_random(s, c, lg, acts, wk):
        pass


# per-game result row
RES_WINNER = 0
RES_END = 1
RES_FIRST = 2
RES_TURNS = 3
RES_BATTLES = 4
RES_DECISIONS = 5
RES_WALLS_A = 6
RES_WALLS_B = 7
RES_DECK_A = 8
RES_DECK_B = 9
RES_DEFICIT_A = 10
RES_DEFICIT_B = 11
RES_ERROR = 12
RES_CNT = 13  # [2][N_CNT] behaviour counters (layout CNT_*), seat A then B
N_RES = RES_CNT + 2 * N_CNT


@hot
def record_stats(s, out):
    """The per-card statistics of the finished game (one contiguous copy: copying only the
    matchup's local ids vectorises worse than copying the whole block)."""
    for k in range(N_ST * NL):
        out[k] = s[ST_BASE + k]


@hot
def record(s, out):
    out[RES_WINNER] = s[G_WINNER]
    out[RES_END] = s[G_END]
    out[RES_FIRST] = s[G_FIRST]
    out[RES_TURNS] = s[G_TURNS]
    out[RES_BATTLES] = s[G_BATTLES]
    out[RES_DECISIONS] = s[G_DECISIONS]
    out[RES_WALLS_A] = wall_total(s, 0)
    out[RES_WALLS_B] = wall_total(s, 1)
    out[RES_DECK_A] = s[P0 + PB_DECK_N]
    out[RES_DECK_B] = s[P1 + PB_DECK_N]
    out[RES_DEFICIT_A] = s[G_MAX_DEFICIT]
    out[RES_DEFICIT_B] = s[G_MAX_DEFICIT + 1]
    out[RES_ERROR] = s[G_ERROR]
    for k in range(2 * N_CNT):
        out[RES_CNT + k] = s[G_CNT + k]


def run_random(c, seeds, results, stats):
    """Play ``len(seeds)`` random games of one matchup; fill results[g] and stats[g]."""
    s = np.zeros(S_SIZE, dtype=np.int64)
    lg = np.zeros((1, LW), dtype=np.int64)
    acts = np.zeros((MAXA, AW), dtype=np.int64)
    wk = np.zeros(WK_SIZE, dtype=np.int64)
    _run_random(s, c, lg, acts, wk, seeds, results, stats)


@kernel
def _run_random(s, c, lg, acts, wk, seeds, results, stats):
    for g in range(seeds.shape[0]):
        setup(s, c, lg, seeds[g])
        play_random(s, c, lg, acts, wk)
        record(s, results[g])
        record_stats(s, stats[g])
