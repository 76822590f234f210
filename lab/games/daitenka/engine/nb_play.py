"""Set-up (R3) and whole-game loops with the compiled random bot.

``setup`` deals a game from the context's deck lists with the deal stream; ``play_random`` plays
it out choosing uniformly among the distinct legal decisions with the play stream; ``run_random``
plays a batch and fills preallocated result rows. Only ``@njit`` kernels; no I/O.
"""

import numpy as np
from lab.jit import hot, kernel

from lab.games.daitenka.engine import layout as L
from lab.games.daitenka.engine.nb_actions import WK_SIZE
from lab.games.daitenka.engine.nb_core import deal_opening, deck_push, find_row, pb, wall_total
from lab.games.daitenka.engine.nb_effects import credit
from lab.games.daitenka.engine.nb_pick import random_pick
from lab.games.daitenka.engine.nb_resolve import apply, begin_turn, next_mulligan, shuffle_deck
from lab.games.daitenka.cards.vocab import Effect, Trigger
from lab.games.daitenka.rules import R_FIRST, R_INITIAL_HAND, R_LOGISTICS, R_MULLIGAN, R_WALLS


@kernel
def _deal_stack(s, c, p, at, count, n_aside):
    """Deal ``count`` non-castle cards from the deck top onto the stack at ``at`` (walls or
    logistics); castles met on the way are set aside (R3.1). Returns the new aside count."""
    b = pb(p)
    dealt = 0
    while dealt < count and s[b + L.PB_DECK_N] > 0:
        k = s[b + L.PB_DECK_N] - 1
        s[b + L.PB_DECK_N] = k
        i = s[b + L.PB_DECK + k]
        if c[L.C_FLAGS + i] & L.F_CASTLE:
            s[L.SCRATCH + n_aside] = i
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
    for k in range(c[L.C_DECK_N + p]):
        i = c[L.C_DECK + p * L.DECK_CAP + k]
        r = find_row(c, i, T_SETUP, E_EXTRA_OPENING)
        if r >= 0:
            credit(s, lg, p, i, r)
            return


@kernel
def clear(s, seeds):
    """An empty game: every zone empty, no castle, nobody to move yet, the generators seeded
    from the 12 seed words (4 deal words per seat, then 4 play words); the log switch kept."""
    log_on = s[L.G_LOG_ON]
    s[:] = 0
    s[L.G_LOG_ON] = log_on
    s[L.G_WINNER] = -1
    s[L.G_TOP_KURUMAGAKARI] = -1
    s[L.G_TOP_OWNER] = -1
    for k in range(4):
        s[L.G_DRNG + k] = seeds[k]
        s[L.G_DRNG_B + k] = seeds[4 + k]
        s[L.G_RNG + k] = seeds[8 + k]
    for p in range(2):
        s[pb(p) + L.PB_CASTLE] = -1


@kernel
def setup(s, c, lg, seeds):
    """A new game: shuffle, deal walls (and legacy logistics), opening hands, first player,
    then the mulligan decisions if the rule is on. ``seeds``: 4 deal words for each seat's deck
    (so a seat swap can give each army the same shuffle), then 4 play words."""
    clear(s, seeds)
    for p in range(2):
        b = pb(p)
        n = c[L.C_DECK_N + p]
        for k in range(n):
            s[b + L.PB_DECK + k] = c[L.C_DECK + p * L.DECK_CAP + k]
        s[b + L.PB_DECK_N] = n
        stream = L.G_DRNG if p == 0 else L.G_DRNG_B
        shuffle_deck(s, p, stream)
        n_aside = 0
        walls, n_aside = _deal_stack(s, c, p, b + L.PB_WALLS, c[L.C_RULES + R_WALLS], n_aside)
        s[b + L.PB_WALL_N] = walls
        if c[L.C_RULES + R_LOGISTICS] != 0:
            logi, n_aside = _deal_stack(s, c, p, b + L.PB_LOGI, 3, n_aside)
            s[b + L.PB_LOGI_N] = logi
        if n_aside > 0:
            for k in range(n_aside):
                deck_push(s, p, s[L.SCRATCH + k])
            shuffle_deck(s, p, stream)
        deal_opening(s, p, c[L.C_RULES + R_INITIAL_HAND] + c[L.C_EXTRA_OPEN + p])
        if c[L.C_EXTRA_OPEN + p] > 0:
            _credit_setup_ability(s, c, lg, p)
    first = c[L.C_RULES + R_FIRST]
    if first < 0:
        # ruling R3.5: a function of the deal alone, symmetric in the two seats' deal words:
        # the same deal gives the same first seat under every variant, and a seat swap (the
        # words exchanged) hands the first turn to the other army
        first = (seeds[0] ^ seeds[4]) & 1
    s[L.G_FIRST] = first
    s[L.G_LEADER] = first
    s[L.G_TO_MOVE] = first
    if c[L.C_RULES + R_MULLIGAN] != 0:
        next_mulligan(s, c, 0)
    else:
        s[L.G_PHASE] = L.PH_LEADER_START


@hot
def step_random(s, c, lg, acts, wk):
    """One decision by the random bot (uniform over distinct legal steps). Returns False once
    the game is over."""
    if s[L.G_PHASE] == L.PH_OVER:
        return False
    if s[L.G_PHASE] == L.PH_LEADER_START:
        begin_turn(s, c, lg)
    random_pick(s, c, acts, wk)
    apply(s, c, lg, acts[0])
    return s[L.G_PHASE] != L.PH_OVER


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
N_RES = RES_CNT + 2 * L.N_CNT


@hot
def record_stats(s, out):
    """The per-card statistics of the finished game (one contiguous copy: copying only the
    matchup's local ids vectorises worse than copying the whole block)."""
    for k in range(L.N_ST * L.NL):
        out[k] = s[L.ST_BASE + k]


@hot
def record(s, out):
    out[RES_WINNER] = s[L.G_WINNER]
    out[RES_END] = s[L.G_END]
    out[RES_FIRST] = s[L.G_FIRST]
    out[RES_TURNS] = s[L.G_TURNS]
    out[RES_BATTLES] = s[L.G_BATTLES]
    out[RES_DECISIONS] = s[L.G_DECISIONS]
    out[RES_WALLS_A] = wall_total(s, 0)
    out[RES_WALLS_B] = wall_total(s, 1)
    out[RES_DECK_A] = s[L.P0 + L.PB_DECK_N]
    out[RES_DECK_B] = s[L.P1 + L.PB_DECK_N]
    out[RES_DEFICIT_A] = s[L.G_MAX_DEFICIT]
    out[RES_DEFICIT_B] = s[L.G_MAX_DEFICIT + 1]
    out[RES_ERROR] = s[L.G_ERROR]
    for k in range(2 * L.N_CNT):
        out[RES_CNT + k] = s[L.G_CNT + k]


def run_random(c, seeds, results, stats):
    """Play ``len(seeds)`` random games of one matchup; fill results[g] and stats[g]."""
    s = np.zeros(L.S_SIZE, dtype=np.int64)
    lg = np.zeros((1, L.LW), dtype=np.int64)
    acts = np.zeros((L.MAXA, L.AW), dtype=np.int64)
    wk = np.zeros(WK_SIZE, dtype=np.int64)
    _run_random(s, c, lg, acts, wk, seeds, results, stats)


@kernel
def _run_random(s, c, lg, acts, wk, seeds, results, stats):
    for g in range(seeds.shape[0]):
        setup(s, c, lg, seeds[g])
        play_random(s, c, lg, acts, wk)
        record(s, results[g])
        record_stats(s, stats[g])
