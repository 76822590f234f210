"""Rumble Nation's bots as kernels: random, a heuristic, and a Monte Carlo search over the dice
(RN8: keep or reroll, which split, whether the daimyo goes along).

The heuristic values a position for every seat in one pass over the areas in war order: an area
is worth its token number times a soft chance of winning it (the power margin over the strongest
rival, blurred by the meeples still in stock), plus half of it for second place where small
tokens are in play, and an expected win sends the expected reinforcements on to the adjacent
later areas where that seat has meeples. It plays the placement with the best own value minus
the best rival's, and rerolls when the expected best placement of a fresh roll beats the best one
on the table. The search plays every legal decision out many times with the heuristic for all
seats; the future dice come from fresh seeds (the game's own dice stream is never read), and the
i-th playout of every decision uses the same seed, so decisions are compared on the same dice.
Floating point here is only + − × ÷ and sqrt, which round identically compiled or not.
"""

import math

from lab.jit import hot, kernel
from lab.games.rumble_nation.nb_core import (
    apply,
    in_stock,
    legal,
    next32,
    pf,
    pf_set,
    placed_count,
    power,
    present,
    rand_below,
    roll,
)
from lab.games.rumble_nation import nb_layout as L

# float work array wf (float64[W_SIZE])
W_REXP = 0  # expected reinforcements per slot × seat
W_V = W_REXP + L.NA * L.MAXP  # value per seat
W_EFF = W_V + L.MAXP  # expected power per seat in the slot at hand
W_PRES = W_EFF + L.MAXP  # 1.0 where the seat has meeples in that slot
W_OPT = W_PRES + L.MAXP  # best value per (pair sum, die class) for the reroll lookahead
W_SIZE = W_OPT + L.NA * 3
WIN_VALUE = 1000  # a playout won outweighs any score margin; the margin breaks ties


@hot
def _soft(x):
    """A smooth step from 0 to 1, ½ at 0: the chance a margin of x (in uncertainty units)
    holds."""
    return 0.5 + 0.5 * x / (1.0 + abs(x))


@kernel
def evaluate(s, c, q, wf, unc):
    """Seat q's expected tokens minus the best rival's, for the placements as they stand."""
    n = c[L.C_PLAYERS]
    r = c[L.C_REINF]
    rem = 0
    for p in range(n):
        rem += in_stock(s, p)
    u = 0.1 + unc * math.sqrt(rem)
    for i in range(L.NA * L.MAXP):
        wf[W_REXP + i] = 0.0
    for p in range(L.MAXP):
        wf[W_V + p] = 0.0
    for t in range(L.NA):
        here = 0
        for p in range(n):
            if present(s, t, p):
                wf[W_PRES + p] = 1.0
                wf[W_EFF + p] = power(s, t, p) + wf[W_REXP + t * L.MAXP + p]
                here += 1
            else:
                wf[W_PRES + p] = 0.0
        if here == 0:
            continue
        for p in range(n):
            if wf[W_PRES + p] == 0.0:
                continue
            e = wf[W_EFF + p]
            o1 = -1.0
            o2 = -1.0
            for k in range(n):
                if k != p and wf[W_PRES + k] != 0.0:
                    x = wf[W_EFF + k]
                    if x > o1:
                        o2 = o1
                        o1 = x
                    elif x > o2:
                        o2 = x
            pw = _soft((e - (o1 if o1 >= 0.0 else 0.0)) / u)
            v = (t + 2) * pw
            if c[L.C_SECOND] != 0 and o1 >= 0.0:
                p2 = 1.0 - pw
                if o2 >= 0.0:
                    p2 *= _soft((e - o2) / u)
                v += ((t + 2) // 2) * p2
            wf[W_V + p] += v
            if r > 0:
                m = s[L.S_ADJ + t] >> (t + 1)
                k = t + 1
                while m != 0:
                    if (m & 1) != 0 and present(s, k, p):
                        wf[W_REXP + k * L.MAXP + p] += r * pw
                    m >>= 1
                    k += 1
    rival = -1.0e18
    for p in range(n):
        if p != q and wf[W_V + p] > rival:
            rival = wf[W_V + p]
    return wf[W_V + q] - rival


@kernel
def option_value(s, c, p, t, k, daimyo, wf, unc):
    """``evaluate`` after seat p places k meeples (the daimyo among them or not) in slot t; the
    state is restored."""
    soldiers = k - daimyo
    s[L.S_MEN + t * L.MAXP + p] += soldiers
    s[L.S_P + L.P_STOCK * L.MAXP + p] -= soldiers
    if daimyo != 0:
        pf_set(s, L.P_DAIMYO, p, t)
        pf_set(s, L.P_DSTOCK, p, 0)
    v = evaluate(s, c, p, wf, unc)
    s[L.S_MEN + t * L.MAXP + p] -= soldiers
    s[L.S_P + L.P_STOCK * L.MAXP + p] += soldiers
    if daimyo != 0:
        pf_set(s, L.P_DAIMYO, p, -1)
        pf_set(s, L.P_DSTOCK, p, 1)
    return v


@kernel
def reroll_value(s, c, p, wf, unc):
    """The expected value of the best placement after rerolling (no second reroll): every
    (pair sum, die class) valued once, then the 216 equally likely rolls."""
    stock = pf(s, L.P_STOCK, p)
    ds = pf(s, L.P_DSTOCK, p)
    for sm in range(L.NA):
        for cl in range(3):
            k = placed_count(c, 2 * cl + 1, stock + ds)
            if cl > 0 and k == placed_count(c, 2 * cl - 1, stock + ds):
                wf[W_OPT + sm * 3 + cl] = wf[W_OPT + sm * 3 + cl - 1]
                continue
            b = -1.0e18
            if stock >= k:
                b = option_value(s, c, p, sm, k, 0, wf, unc)
            if ds != 0:
                v = option_value(s, c, p, sm, k, 1, wf, unc)
                if v > b:
                    b = v
            wf[W_OPT + sm * 3 + cl] = b
    acc = 0.0
    for d0 in range(1, 7):
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                tot = d0 + d1 + d2
                b = wf[W_OPT + (tot - d0 - 2) * 3 + (d0 - 1) // 2]
                v = wf[W_OPT + (tot - d1 - 2) * 3 + (d1 - 1) // 2]
                if v > b:
                    b = v
                v = wf[W_OPT + (tot - d2 - 2) * 3 + (d2 - 1) // 2]
                if v > b:
                    b = v
                acc += b
    return acc / 216.0


@kernel
def heuristic_choose(s, c, acts, n, lookahead, unc, edge, wf):
    """Index of the heuristic's decision among the ``n`` legal ones in ``acts``."""
    p = s[L.S_TO_MOVE]
    best = -1.0e18
    bk = 0
    rk = -1
    for k in range(n):
        a = acts[k]
        if a == L.A_REROLL:
            rk = k
            continue
        daimyo = (a - 1) & 1
        single = ((a - 1) >> 1) % 6 + 1
        v = option_value(
            s, c, p, (a - 1) // 12, placed_count(c, single, in_stock(s, p)), daimyo, wf, unc
        )
        if v > best:
            best = v
            bk = k
    if rk >= 0 and lookahead != 0 and reroll_value(s, c, p, wf, unc) > best + edge:
        return rk
    return bk


@kernel
def playout(t, c, lookahead, unc, edge, wf, pacts):
    """Play the game in ``t`` to its end with the heuristic in every seat."""
    while t[L.S_PHASE] != L.PH_OVER:
        if t[L.S_STAGE] == L.ST_ROLL:
            roll(t)
            continue
        n = legal(t, c, pacts)
        apply(t, c, pacts[heuristic_choose(t, c, pacts, n, lookahead, unc, edge, wf)])


@kernel
def search_choose(s, c, acts, n, bot, wf, ts, tot, pacts):
    """Flat Monte Carlo over the dice: ``bot[BP_SIMS]`` playouts per legal decision, the i-th
    playout of each decision on the same fresh dice seed; the best total (wins first, then
    score margin) is played."""
    if n == 1:
        return 0
    p = s[L.S_TO_MOVE]
    unc = bot[L.BP_UNCERTAIN] / 100.0
    edge = bot[L.BP_REROLL_EDGE] / 100.0
    for k in range(n):
        tot[k] = 0
    for i in range(bot[L.BP_SIMS]):
        w0 = next32(s, L.S_BOT_RNG)
        w1 = next32(s, L.S_BOT_RNG)
        w2 = next32(s, L.S_BOT_RNG)
        w3 = next32(s, L.S_BOT_RNG)
        if (w0 | w1 | w2 | w3) == 0:
            w0 = 1
        for k in range(n):
            for j in range(L.S_SIZE):
                ts[j] = s[j]
            ts[L.S_DICE_RNG] = w0
            ts[L.S_DICE_RNG + 1] = w1
            ts[L.S_DICE_RNG + 2] = w2
            ts[L.S_DICE_RNG + 3] = w3
            apply(ts, c, acts[k])
            playout(ts, c, bot[L.BP_PLAYOUT_LOOKAHEAD], unc, edge, wf, pacts)
            best_other = -1
            for q in range(c[L.C_PLAYERS]):
                if q != p and pf(ts, L.P_SCORE, q) > best_other:
                    best_other = pf(ts, L.P_SCORE, q)
            tot[k] += pf(ts, L.P_SCORE, p) - best_other + (WIN_VALUE if ts[L.S_WINNER] == p else 0)
    bk = 0
    for k in range(1, n):
        if tot[k] > tot[bk]:
            bk = k
    return bk


@kernel
def choose(s, c, acts, n, bot, wf, ts, tot, pacts):
    """Index of the chosen decision among the ``n`` legal ones, by the seat's bot spec."""
    kind = bot[L.BP_KIND]
    if kind == L.BOT_HEURISTIC:
        return heuristic_choose(
            s,
            c,
            acts,
            n,
            bot[L.BP_LOOKAHEAD],
            bot[L.BP_UNCERTAIN] / 100.0,
            bot[L.BP_REROLL_EDGE] / 100.0,
            wf,
        )
    if kind == L.BOT_SEARCH:
        return search_choose(s, c, acts, n, bot, wf, ts, tot, pacts)
    return rand_below(s, L.S_BOT_RNG, n)
