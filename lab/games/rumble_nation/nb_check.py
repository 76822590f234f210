"""Invariants of a Rumble Nation state, and a random-play loop that checks them after every step.

Kept apart from the fast loop (architecture.md principle 6): the batch loop never calls these.
``check`` re-derives what the rules imply from the raw fields — meeple conservation, chips, the
war's outcome area by area, reinforcements, scores and ranks — and returns the number of the
first broken invariant (``INVARIANTS``), 0 if all hold.
"""

from lab.jit import kernel
from lab.games.rumble_nation.nb_core import (
    apply,
    in_stock,
    legal,
    men,
    pf,
    power,
    present,
    rand_below,
    roll,
    setup,
)
from lab.games.rumble_nation import nb_layout as L

INVARIANTS = (
    "",
    "meeple conservation",
    "daimyo in one place",
    "stock empty ⇔ sword chip held",
    "sword chips distinct and biggest first",
    "dice on the table",
    "seat to move has meeples",
    "areas resolved in ascending order",
    "war: the large token to the highest power (ties: bigger chip)",
    "war: the small token to the runner-up",
    "reinforcements from won adjacent areas",
    "tokens taken once",
    "scores = sum of tokens",
    "ranks by score, then chip",
)

# event counters of the checked loop (coverage: every rule path occurs)
K_REROLL = 0
K_PLACE = 1
K_DAIMYO = 2
K_SHORT = 3  # a placement of fewer than the die's count: the stock ran short
K_SET_ASIDE = 4
K_SMALL = 5
K_REINF = 6
K_POWER_TIE = 7  # an area won on the sword chip
K_SCORE_TIE = 8  # a game won on the sword chip
K_GAMES = 9
N_K = 10


@kernel
def _beats(s, t, p, q):
    """Seat p ranks above seat q in slot t: more power, or equal power and a bigger chip."""
    a = power(s, t, p)
    b = power(s, t, q)
    return a > b or (a == b and pf(s, L.P_CHIP, p) > pf(s, L.P_CHIP, q))


@kernel
def check(s, c):
    n = c[L.C_PLAYERS]
    r = c[L.C_REINF]
    over = s[L.S_PHASE] == L.PH_OVER
    held = 0
    chips = 0
    for p in range(n):
        on_map = 0
        for t in range(L.NA):
            on_map += men(s, t, p)
        d = pf(s, L.P_DAIMYO, p)
        if pf(s, L.P_STOCK, p) < 0 or in_stock(s, p) + on_map + (1 if d >= 0 else 0) != pf(
            s, L.P_TOTAL, p
        ):
            return 1
        if pf(s, L.P_DSTOCK, p) + (1 if d >= 0 else 0) > c[L.C_DAIMYO]:
            return 2
        chip = pf(s, L.P_CHIP, p)
        if (in_stock(s, p) == 0) != (chip > 0):
            return 3
        if chip > 0:
            if chip > n or (chips >> chip) & 1:
                return 4
            chips |= 1 << chip
            held += 1
    top = (1 << (n + 1)) - (1 << (n + 1 - held))  # bits n+1-held … n: the biggest chips
    if s[L.S_NEXT_CHIP] != n - held or (held > 0 and chips != top):
        return 4
    if not over:
        staged = s[L.S_STAGE] == L.ST_CHOOSE
        for k in range(3):
            v = s[L.S_DIE + k]
            if (staged and not 1 <= v <= 6) or (not staged and v != 0):
                return 5
        if in_stock(s, s[L.S_TO_MOVE]) == 0:
            return 6
        if s[L.S_NRESOLVED] != 0:
            return 7
        for t in range(L.NA):
            if s[L.S_LARGE + t] != -1 or s[L.S_SMALL + t] != -1:
                return 11
            for p in range(n):
                if s[L.S_REINF + t * L.MAXP + p] != 0:
                    return 10
        for p in range(n):
            if pf(s, L.P_SCORE, p) != 0:
                return 12
        return 0
    if s[L.S_NRESOLVED] != L.NA:
        return 7
    for k in range(L.NA):
        if s[L.S_ORDER + k] != k:  # every area, in ascending token number
            return 7
    for t in range(L.NA):
        w = s[L.S_LARGE + t]
        here = 0
        for p in range(n):
            if present(s, t, p):
                here += 1
        if here == 0:
            if w != -1 or s[L.S_SMALL + t] != -1:
                return 8
            continue
        if w < 0 or w >= n or not present(s, t, w):
            return 8
        for p in range(n):
            if p != w and present(s, t, p) and not _beats(s, t, w, p):
                return 8
        sm = s[L.S_SMALL + t]
        if c[L.C_SECOND] == 0 or here < 2:
            if sm != -1:
                return 9
        else:
            if sm < 0 or sm == w or not present(s, t, sm):
                return 9
            for p in range(n):
                if p != w and p != sm and present(s, t, p) and not _beats(s, t, sm, p):
                    return 9
        for p in range(n):  # reinforcements = r per adjacent lower area p won, where present
            want = 0
            if present(s, t, p):
                for u in range(t):
                    if (s[L.S_ADJ + t] >> u) & 1 and s[L.S_LARGE + u] == p:
                        want += r
            if s[L.S_REINF + t * L.MAXP + p] != want:
                return 10
    for p in range(n):
        score = 0
        large = 0
        small = 0
        for t in range(L.NA):
            if s[L.S_LARGE + t] == p:
                score += t + 2
                large += 1
            if s[L.S_SMALL + t] == p:
                score += (t + 2) // 2
                small += 1
        if large != pf(s, L.P_LARGE_N, p) or small != pf(s, L.P_SMALL_N, p):
            return 11
        if score != pf(s, L.P_SCORE, p):
            return 12
    for p in range(n):
        above = 0
        for q in range(n):
            if pf(s, L.P_SCORE, q) > pf(s, L.P_SCORE, p) or (
                pf(s, L.P_SCORE, q) == pf(s, L.P_SCORE, p)
                and pf(s, L.P_CHIP, q) > pf(s, L.P_CHIP, p)
            ):
                above += 1
        if pf(s, L.P_RANK, p) != above + 1 or (above == 0) != (s[L.S_WINNER] == p):
            return 13
    return 0


@kernel
def count_war(s, c, kinds):
    """Coverage counters of a finished game's war phase."""
    n = c[L.C_PLAYERS]
    kinds[K_GAMES] += 1
    for t in range(L.NA):
        w = s[L.S_LARGE + t]
        if w < 0:
            kinds[K_SET_ASIDE] += 1
            continue
        if s[L.S_SMALL + t] >= 0:
            kinds[K_SMALL] += 1
        for p in range(n):
            if p != w and present(s, t, p) and power(s, t, p) == power(s, t, w):
                kinds[K_POWER_TIE] += 1
                break
        for p in range(n):
            if s[L.S_REINF + t * L.MAXP + p] > 0:
                kinds[K_REINF] += 1
    w = s[L.S_WINNER]
    for p in range(n):
        if p != w and pf(s, L.P_SCORE, p) == pf(s, L.P_SCORE, w):
            kinds[K_SCORE_TIE] += 1
            break


@kernel
def play_random_checked(s, c, seeds, acts, errors, kinds):
    """Random games from ``seeds`` (start player drawn), every invariant checked after set-up
    and after every roll and decision; errors[g] = the first broken invariant of game g."""
    for g in range(seeds.shape[0]):
        setup(s, c, seeds[g], -1)
        e = check(s, c)
        while e == 0 and s[L.S_PHASE] != L.PH_OVER:
            if s[L.S_STAGE] == L.ST_ROLL:
                roll(s)
            else:
                n = legal(s, c, acts)
                a = acts[rand_below(s, L.S_BOT_RNG, n)]
                if a == L.A_REROLL:
                    kinds[K_REROLL] += 1
                else:
                    kinds[K_PLACE] += 1
                    kinds[K_DAIMYO] += (a - 1) & 1
                    single = ((a - 1) >> 1) % 6 + 1
                    if in_stock(s, s[L.S_TO_MOVE]) < c[L.C_COUNT + (single - 1) // 2]:
                        kinds[K_SHORT] += 1
                apply(s, c, a)
            e = check(s, c)
        errors[g] = e
        if e == 0:
            count_war(s, c, kinds)
