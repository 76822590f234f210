"""The emitters of legal steps: each writes one kind of decision into the action buffer (rows
of ``L.AW`` ints) — a set with its 鉄砲 and 車懸り twins, every set of one strength, every run of
one length, the answers to an ∞, the tactics and sieges — and the scratch array they share.

``nb_actions`` decides which emitters run for a position (its step plan); the emitters only list.
Each distinct step string of the scenario grammar comes out once, cards in local-id order.
"""

from lab.games.daitenka.cards.vocab import Condition, Effect, Trigger
from lab.games.daitenka.engine import layout as L
from lab.jit import hot, kernel
from lab.games.daitenka.engine.nb_core import (
    amount_of,
    condition_of,
    effect_of,
    find_row,
    hand_count,
    hand_mask,
    logi_limit,
    logi_count,
    low_index,
    numval,
    pb,
)
from lab.games.daitenka.rules import R_LOGISTICS

T_RESPONSE = int(Trigger.RESPONSE)
E_SURPRISE = int(Effect.SURPRISE)
E_SIEGE = int(Effect.SIEGE)
K_VS_ANY = int(Condition.VS_ANY)
K_VS_SINGLE = int(Condition.VS_SINGLE)
K_VS_NUM_SINGLE = int(Condition.VS_NUMBERED_SINGLE)
K_VS_2 = int(Condition.VS_SET_2PLUS)
K_VS_3 = int(Condition.VS_SET_3PLUS)
K_VS_INF = int(Condition.VS_INF)

# scratch layout (``wk``, int64[WK_SIZE])
WK_IDS = 0  # [12][SL_CAP]: card types of strength v in hand
WK_N = 12 * L.SL_CAP  # [12]: how many types
WK_IX = WK_N + 12  # [5]: odometer
WK_CARDS = WK_IX + 5  # [5]: the set being emitted
WK_NGROUPS = WK_CARDS + 5  # the step plan (nb_actions): its length, total, then its rows
WK_TOTAL = WK_NGROUPS + 1
WK_GROUPS = WK_NGROUPS + 2
MAX_GROUPS = 40
GRP_W = 4  # a plan row: code, kind, arg, count
WK_SIZE = WK_GROUPS + MAX_GROUPS * GRP_W


@hot
def plan_row(wk, g):
    """Row g of the step plan: (code, kind, arg, count)."""
    r = WK_GROUPS + g * GRP_W
    return wk[r], wk[r + 1], wk[r + 2], wk[r + 3]


@hot
def response_row(c, i):
    """Card i's response row (tactic, 籠城, 暗殺, 天下布武, 鉄砲), or -1."""
    return find_row(c, i, T_RESPONSE, 0)


@hot
def emit_row(acts, n, kind, k, wk, kurumagakari, fire, x):
    if n >= L.MAXA:
        return n
    acts[n, L.AX_KIND] = kind
    acts[n, L.AX_N] = k
    for j in range(5):
        acts[n, L.AX_C0 + j] = wk[WK_CARDS + j] if j < k else -1
    acts[n, L.AX_KURUMAGAKARI] = kurumagakari
    acts[n, L.AX_FIRE] = fire
    acts[n, L.AX_X] = x
    return n + 1


@hot
def emit_simple(acts, n, kind, card, x):
    if n >= L.MAXA:
        return n
    acts[n, L.AX_KIND] = kind
    acts[n, L.AX_N] = 1 if card >= 0 else 0
    acts[n, L.AX_C0] = card
    for j in range(1, 5):
        acts[n, L.AX_C0 + j] = -1
    acts[n, L.AX_KURUMAGAKARI] = -1
    acts[n, L.AX_FIRE] = 0
    acts[n, L.AX_X] = x
    return n + 1


@hot
def emit_set(c, acts, n, kind, k, wk, kurumagakari):
    """A set, plus its 鉄砲-fire twin (answers holding a gun; ruling S4, 車懸り or not) and
    車懸り twins."""
    gun = False
    if kind == L.A_ANSWER:
        for j in range(k):
            if c[L.C_FLAGS + wk[WK_CARDS + j]] & L.F_GUN:
                gun = True
    n = emit_row(acts, n, kind, k, wk, -1, 0, -1)
    if gun:
        n = emit_row(acts, n, kind, k, wk, -1, 1, -1)
    if kurumagakari >= 0:
        n = emit_row(acts, n, kind, k, wk, kurumagakari, 0, -1)
        if gun:
            n = emit_row(acts, n, kind, k, wk, kurumagakari, 1, -1)
    return n


@hot
def gather_hand(s, c, p, wk):
    """Group the unit types in p's hand by strength (local-id order within a strength) and
    return the bitmask of strengths present (bit v; 11 = ∞)."""
    b = pb(p)
    for v in range(1, 12):
        wk[WK_N + v] = 0
    pres = 0
    m = s[b + L.PB_HAND_MASK] & c[L.C_M_UNIT]
    while m != 0:
        low = m & -m
        m ^= low
        i = low_index(low)
        v = c[L.C_STR + i]
        wk[WK_IDS + v * L.SL_CAP + wk[WK_N + v]] = i
        wk[WK_N + v] += 1
        pres |= 1 << v
    return pres


@hot
def _multiset_ok(s, hb, wk, v, k):
    j = 0
    while j < k:
        r = j
        while r + 1 < k and wk[WK_IX + r + 1] == wk[WK_IX + j]:
            r += 1
        if s[hb + wk[WK_IDS + v * L.SL_CAP + wk[WK_IX + j]]] < r - j + 1:
            return False
        j = r + 1
    return True


@kernel
def emit_equal(s, c, p, acts, n, kind, v, k, kurumagakari, wk):
    """Every distinct set of ``k`` cards of strength ``v`` from p's hand."""
    m = wk[WK_N + v]
    if m == 0:
        return n
    hb = pb(p) + L.PB_HAND
    if m == 1:
        i = wk[WK_IDS + v * L.SL_CAP]
        if s[hb + i] >= k:
            for j in range(k):
                wk[WK_CARDS + j] = i
            n = emit_set(c, acts, n, kind, k, wk, kurumagakari)
        return n
    for j in range(k):
        wk[WK_IX + j] = 0
    while True:
        if _multiset_ok(s, hb, wk, v, k):
            for j in range(k):
                wk[WK_CARDS + j] = wk[WK_IDS + v * L.SL_CAP + wk[WK_IX + j]]
            n = emit_set(c, acts, n, kind, k, wk, kurumagakari)
        j = k - 1
        while j >= 0 and wk[WK_IX + j] == m - 1:
            j -= 1
        if j < 0:
            return n
        nxt = wk[WK_IX + j] + 1
        for q in range(j, k):
            wk[WK_IX + q] = nxt


@hot
def emit_runs(s, c, p, acts, n, kind, length, start, kurumagakari, wk):
    """Every distinct run of ``length`` consecutive strengths from ``start``."""
    for j in range(length):
        if wk[WK_N + start + j] == 0:
            return n
        wk[WK_IX + j] = 0
    while True:
        for j in range(length):
            v = start + j
            wk[WK_CARDS + j] = wk[WK_IDS + v * L.SL_CAP + wk[WK_IX + j]]
        n = emit_set(c, acts, n, kind, length, wk, kurumagakari)
        j = length - 1
        while j >= 0 and wk[WK_IX + j] == wk[WK_N + start + j] - 1:
            wk[WK_IX + j] = 0
            j -= 1
        if j < 0:
            return n
        wk[WK_IX + j] += 1


@hot
def first_in(s, c, p, mask):
    """Lowest local id of p's hand within ``mask``, or -1."""
    m = hand_mask(s, p) & mask
    if m == 0:
        return -1
    return low_index(m & -m)


@hot
def shape_ok(cond, shape, tn):
    if cond == K_VS_ANY:
        return True
    if cond == K_VS_SINGLE:
        return tn == 1
    if cond == K_VS_NUM_SINGLE:
        return tn == 1 and shape != L.SHAPE_INF
    if cond == K_VS_2:
        return tn >= 2
    if cond == K_VS_3:
        return tn >= 3
    if cond == K_VS_INF:
        return shape == L.SHAPE_INF
    return False


@hot
def run_starts(pres, length, lim):
    """Bitmask of start strengths v with v … v+length-1 all present and the top ≤ min(10, lim)."""
    nums = pres & 0x7FE
    r = nums
    for d in range(1, length):
        r &= nums >> d
    top = 10 if lim > 10 else lim
    last = top - length + 1
    if last < 1:
        return 0
    return r & ((1 << (last + 1)) - 1)


@kernel
def equal_sets(s, c, p, acts, n, kind, v, k_lo, k_hi, kurumagakari, wk):
    """Sets of k_lo…k_hi cards of strength v (the common one-type case without an odometer)."""
    m = wk[WK_N + v]
    if k_lo == 1 and m > 1:
        for j in range(m):
            wk[WK_CARDS] = wk[WK_IDS + v * L.SL_CAP + j]
            n = emit_set(c, acts, n, kind, 1, wk, kurumagakari)
        k_lo = 2
    if m == 1:
        i = wk[WK_IDS + v * L.SL_CAP]
        have = s[pb(p) + L.PB_HAND + i]
        if k_hi > have:
            k_hi = have
        for k in range(k_lo, k_hi + 1):
            for j in range(k):
                wk[WK_CARDS + j] = i
            n = emit_set(c, acts, n, kind, k, wk, kurumagakari)
        return n
    for k in range(k_lo, k_hi + 1):
        n = emit_equal(s, c, p, acts, n, kind, v, k, kurumagakari, wk)
    return n


@kernel
def all_runs(s, c, p, acts, n, kind, pres, lim, length, above, kurumagakari, wk):
    """Runs of ``length`` whose top is above ``above``, in start order."""
    starts = run_starts(pres, length, lim)
    starts &= ~((1 << (above - length + 2)) - 1) if above - length + 2 > 0 else -1
    while starts != 0:
        low = starts & -starts
        starts ^= low
        n = emit_runs(s, c, p, acts, n, kind, length, low_index(low), kurumagakari, wk)
    return n


@kernel
def special_answers(s, c, p, acts, n, kurumagakari, wk):
    """The answers to an opponent's ∞ on top of the field (R7, R8, R12): assassins (not against
    毘沙門天: ruling S2) and 天下布武 (not against another 信長), within the logistics limit."""
    lim = logi_limit(s, c, p)
    top = s[L.G_TOP_CARDS]
    mask = hand_mask(s, p) & c[L.C_M_SPECIAL]
    while mask != 0:
        low = mask & -mask
        mask ^= low
        i = low_index(low)
        f = c[L.C_FLAGS + i]
        if (
            f & L.F_ASSASSIN
            and c[L.C_FLAGS + top] & L.F_IMMUNE == 0
            and numval(c[L.C_STR + i]) <= lim
        ):
            wk[WK_CARDS] = i
            n = emit_set(c, acts, n, L.A_ANSWER, 1, wk, kurumagakari)
        elif f & L.F_TENKA and c[L.C_FLAGS + top] & L.F_TENKA == 0 and lim >= 10:
            r = response_row(c, i)
            cost = amount_of(c, r) if r >= 0 else 0
            others = hand_count(s, p) - 1
            wk[WK_CARDS] = i
            if others >= cost:
                n = emit_row(acts, n, L.A_ANSWER, 1, wk, -1, 0, -1)
            if kurumagakari >= 0 and others - 1 >= cost:  # S3: the 車懸り is not a hand card
                n = emit_row(acts, n, L.A_ANSWER, 1, wk, kurumagakari, 0, -1)
    return n


@kernel
def tactics_and_sieges(s, c, p, acts, n):
    shape = s[L.G_TOP_SHAPE]
    tn = s[L.G_TOP_N]
    mask = hand_mask(s, p) & (c[L.C_M_TACTIC] | c[L.C_M_CASTLE])
    if mask == 0:
        return n
    logistics = c[L.C_RULES + R_LOGISTICS] != 0
    logi = logi_count(s, p)
    lim = logi_limit(s, c, p)
    while mask != 0:
        low = mask & -mask
        mask ^= low
        t = low_index(low)
        r = response_row(c, t)
        if r < 0 or not shape_ok(condition_of(c, r), shape, tn):
            continue
        if logistics and c[L.C_COST + t] > logi:
            continue
        eff = effect_of(c, r)
        if eff == E_SIEGE:
            n = emit_simple(acts, n, L.A_SIEGE, -1, t)
        elif eff == E_SURPRISE:
            units = hand_mask(s, p) & c[L.C_M_UNIT] & ~c[L.C_M_STR + L.INF]
            while units != 0:
                lowu = units & -units
                units ^= lowu
                u = low_index(lowu)
                if c[L.C_STR + u] <= lim:
                    n = emit_simple(acts, n, L.A_TACTIC, u, t)
        elif c[L.C_FLAGS + t] & L.F_TACTIC:
            n = emit_simple(acts, n, L.A_TACTIC, -1, t)
    return n
