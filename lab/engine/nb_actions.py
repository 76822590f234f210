"""Legal actions: every distinct decision the player to move may take (rules.md R4, R5, R7–R11).

Fills a preallocated action buffer (rows of ``AW`` ints, see ``layout``) and returns how many.
Each distinct step string of the scenario grammar appears exactly once, cards in local-id order,
so a uniform pick over the rows is a uniform pick over distinct steps. No state is changed.
"""

from lab.engine.jit import hot, kernel

from lab.cards.vocab import Condition, Effect, Trigger
from lab.engine.layout import *  # noqa: F403
from lab.engine.nb_core import castle_row, logi_limit, low_index, numval, pb, wall_total
from lab.rules import (R_LOGISTICS, R_ODAWARA_FORTIFY, R_PASS_ONLY_IF_NO_PLAY, R_WALLS)

T_RESPONSE = int(Trigger.RESPONSE)
T_STANDING = int(Trigger.STANDING)
E_SURPRISE = int(Effect.SURPRISE)
E_SIEGE = int(Effect.SIEGE)
E_TENKA = int(Effect.TENKA_FUBU)
E_ODAWARA = int(Effect.ODAWARA)
K_VS_ANY = int(Condition.VS_ANY)
K_VS_SINGLE = int(Condition.VS_SINGLE)
K_VS_NUM_SINGLE = int(Condition.VS_NUMBERED_SINGLE)
K_VS_2 = int(Condition.VS_SET_2PLUS)
K_VS_3 = int(Condition.VS_SET_3PLUS)
K_VS_INF = int(Condition.VS_INF)

# scratch layout (``wk``, int64[WK_SIZE])
WK_IDS = 0  # [12][SL_CAP]: card types of strength v in hand
WK_N = 12 * SL_CAP  # [12]: how many types
WK_IX = WK_N + 12  # [5]: odometer
WK_CARDS = WK_IX + 5  # [5]: the set being emitted
WK_NGROUPS = WK_CARDS + 5  # nb_pick's group table: its length, total, then [40][4] rows
WK_GROUPS = WK_NGROUPS + 2
WK_SIZE = WK_GROUPS + 40 * 4


@hot
def _emit(acts, n, kind, k, wk, kur, fire, x):
    if n >= MAXA:
        return n
    acts[n, AX_KIND] = kind
    acts[n, AX_N] = k
    for j in range(5):
        acts[n, AX_C0 + j] = wk[WK_CARDS + j] if j < k else -1
    acts[n, AX_KUR] = kur
    acts[n, AX_FIRE] = fire
    acts[n, AX_X] = x
    return n + 1


@hot
def _emit_simple(acts, n, kind, card, x):
    if n >= MAXA:
        return n
    acts[n, AX_KIND] = kind
    acts[n, AX_N] = 1 if card >= 0 else 0
    acts[n, AX_C0] = card
    for j in range(1, 5):
        acts[n, AX_C0 + j] = -1
    acts[n, AX_KUR] = -1
    acts[n, AX_FIRE] = 0
    acts[n, AX_X] = x
    return n + 1


@hot
def _emit_set(c, acts, n, kind, k, wk, kur):
    """A set, plus its 鉄砲-fire twin (answers holding a gun) and 車懸り twins."""
    gun = False
    if kind == A_ANSWER:
        for j in range(k):
            if c[C_FLAGS + wk[WK_CARDS + j]] & F_GUN:
                gun = True
    n = _emit(acts, n, kind, k, wk, -1, 0, -1)
    if gun:
        n = _emit(acts, n, kind, k, wk, -1, 1, -1)
    if kur >= 0:
        n = _emit(acts, n, kind, k, wk, kur, 0, -1)
        if gun:
            n = _emit(acts, n, kind, k, wk, kur, 1, -1)
    return n


@hot
def gather_hand(s, c, p, wk):
    """Group the unit types in p's hand by strength (local-id order within a strength) and
    return the bitmask of strengths present (bit v; 11 = ∞)."""
    b = pb(p)
    for v in range(1, 12):
        wk[WK_N + v] = 0
    pres = 0
    m = s[b + PB_HAND_MASK] & c[C_M_UNIT]
    while m != 0:
        low = m & -m
        m ^= low
        i = low_index(low)
        v = c[C_STR + i]
        wk[WK_IDS + v * SL_CAP + wk[WK_N + v]] = i
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
        if s[hb + wk[WK_IDS + v * SL_CAP + wk[WK_IX + j]]] < r - j + 1:
            return False
        j = r + 1
    return True


@hot
def _emit_equal(s, c, p, acts, n, kind, v, k, kur, wk):
    """Every distinct set of ``k`` cards of strength ``v`` from p's hand."""
    m = wk[WK_N + v]
    if m == 0:
        return n
    hb = pb(p) + PB_HAND
    if m == 1:
        i = wk[WK_IDS + v * SL_CAP]
        if s[hb + i] >= k:
            for j in range(k):
                wk[WK_CARDS + j] = i
            n = _emit_set(c, acts, n, kind, k, wk, kur)
        return n
    for j in range(k):
        wk[WK_IX + j] = 0
    while True:
        if _multiset_ok(s, hb, wk, v, k):
            for j in range(k):
                wk[WK_CARDS + j] = wk[WK_IDS + v * SL_CAP + wk[WK_IX + j]]
            n = _emit_set(c, acts, n, kind, k, wk, kur)
        j = k - 1
        while j >= 0 and wk[WK_IX + j] == m - 1:
            j -= 1
        if j < 0:
            return n
        nxt = wk[WK_IX + j] + 1
        for q in range(j, k):
            wk[WK_IX + q] = nxt


@hot
def _emit_runs(s, c, p, acts, n, kind, length, start, kur, wk):
    """Every distinct run of ``length`` consecutive strengths from ``start``."""
    for j in range(length):
        if wk[WK_N + start + j] == 0:
            return n
        wk[WK_IX + j] = 0
    while True:
        for j in range(length):
            v = start + j
            wk[WK_CARDS + j] = wk[WK_IDS + v * SL_CAP + wk[WK_IX + j]]
        n = _emit_set(c, acts, n, kind, length, wk, kur)
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
    m = s[pb(p) + PB_HAND_MASK] & mask
    if m == 0:
        return -1
    return low_index(m & -m)


@hot
def response_row(c, i):
    for j in range(4):
        r = C_ROWS + i * 16 + j * 4
        if c[r] == T_RESPONSE:
            return r
    return -1


@hot
def shape_ok(cond, shape, tn):
    if cond == K_VS_ANY:
        return True
    if cond == K_VS_SINGLE:
        return tn == 1
    if cond == K_VS_NUM_SINGLE:
        return tn == 1 and shape != SHAPE_INF
    if cond == K_VS_2:
        return tn >= 2
    if cond == K_VS_3:
        return tn >= 3
    if cond == K_VS_INF:
        return shape == SHAPE_INF
    return False


@kernel
def has_lead(s, c, p):
    """Can p lead any set (a single unit within the logistics limit is enough)?"""
    mask = s[pb(p) + PB_HAND_MASK]
    lim = logi_limit(s, c, p)
    for v in range(1, 12):
        if mask & c[C_M_STR + v] != 0 and numval(v) <= lim:
            return True
    return False


@hot
def _run_starts(pres, length, lim):
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
def _equal_sets(s, c, p, acts, n, kind, v, k_lo, k_hi, kur, wk):
    """Sets of k_lo…k_hi cards of strength v (the common one-type case without an odometer)."""
    m = wk[WK_N + v]
    if k_lo == 1 and m > 1:
        for j in range(m):
            wk[WK_CARDS] = wk[WK_IDS + v * SL_CAP + j]
            n = _emit_set(c, acts, n, kind, 1, wk, kur)
        k_lo = 2
    if m == 1:
        i = wk[WK_IDS + v * SL_CAP]
        have = s[pb(p) + PB_HAND + i]
        if k_hi > have:
            k_hi = have
        for k in range(k_lo, k_hi + 1):
            for j in range(k):
                wk[WK_CARDS + j] = i
            n = _emit_set(c, acts, n, kind, k, wk, kur)
        return n
    for k in range(k_lo, k_hi + 1):
        n = _emit_equal(s, c, p, acts, n, kind, v, k, kur, wk)
    return n


@kernel
def _all_runs(s, c, p, acts, n, kind, pres, lim, length, above, kur, wk):
    """Runs of ``length`` whose top is above ``above``, in start order."""
    starts = _run_starts(pres, length, lim)
    starts &= ~((1 << (above - length + 2)) - 1) if above - length + 2 > 0 else -1
    while starts != 0:
        low = starts & -starts
        starts ^= low
        n = _emit_runs(s, c, p, acts, n, kind, length, low_index(low), kur, wk)
    return n


@kernel
def _leads(s, c, p, acts, n, kur, wk, pres):
    lim = logi_limit(s, c, p)
    top = 10 if lim > 10 else lim
    m = pres & ((1 << (top + 1)) - 1) & 0x7FE
    while m != 0:
        low = m & -m
        m ^= low
        n = _equal_sets(s, c, p, acts, n, A_LEAD, low_index(low), 1, 4, kur, wk)
    if lim >= 10 and pres & (1 << INF):
        n = _emit_equal(s, c, p, acts, n, A_LEAD, INF, 1, kur, wk)
    if pres & (pres >> 1) & (pres >> 2) & 0x7FE:
        for length in range(3, 6):
            n = _all_runs(s, c, p, acts, n, A_LEAD, pres, lim, length, 0, kur, wk)
    return n


@kernel
def _answers(s, c, p, acts, n, kur, wk, pres):
    lim = logi_limit(s, c, p)
    shape = s[G_TOP_SHAPE]
    tn = s[G_TOP_N]
    ts = s[G_TOP_STR]
    top = s[G_TOP_CARDS]
    b = pb(p)
    if shape == SHAPE_SAME:
        top = 10 if lim > 10 else lim
        m = pres & ((1 << (top + 1)) - 1) & ~((1 << (ts + 1)) - 1) & 0x7FE
        while m != 0:
            low = m & -m
            m ^= low
            n = _equal_sets(s, c, p, acts, n, A_ANSWER, low_index(low), tn, tn, kur, wk)
        if tn == 1 and lim >= 10 and pres & (1 << INF):
            n = _emit_equal(s, c, p, acts, n, A_ANSWER, INF, 1, kur, wk)
    elif shape == SHAPE_RUN:
        n = _all_runs(s, c, p, acts, n, A_ANSWER, pres, lim, tn, ts, kur, wk)
    else:
        mask = s[b + PB_HAND_MASK] & c[C_M_SPECIAL]
        while mask != 0:
            low = mask & -mask
            mask ^= low
            i = low_index(low)
            f = c[C_FLAGS + i]
            if f & F_ASSASSIN and c[C_FLAGS + top] & F_IMMUNE == 0 and numval(c[C_STR + i]) <= lim:
                wk[WK_CARDS] = i
                n = _emit_set(c, acts, n, A_ANSWER, 1, wk, kur)
            elif f & F_TENKA and c[C_FLAGS + top] & F_TENKA == 0 and lim >= 10:
                r = response_row(c, i)
                cost = c[r + 2] if r >= 0 else 0
                others = s[b + PB_HAND_N] - 1
                wk[WK_CARDS] = i
                if others >= cost:
                    n = _emit(acts, n, A_ANSWER, 1, wk, -1, 0, -1)
                if kur >= 0 and others - 1 >= cost:
                    n = _emit(acts, n, A_ANSWER, 1, wk, kur, 0, -1)
    return n


@kernel
def _tactics_and_sieges(s, c, p, acts, n):
    b = pb(p)
    shape = s[G_TOP_SHAPE]
    tn = s[G_TOP_N]
    mask = s[b + PB_HAND_MASK] & (c[C_M_TACTIC] | c[C_M_CASTLE])
    if mask == 0:
        return n
    logistics = c[C_RULES + R_LOGISTICS] != 0
    logi = s[b + PB_LOGI_N]
    lim = logi_limit(s, c, p)
    while mask != 0:
        low = mask & -mask
        mask ^= low
        t = low_index(low)
        r = response_row(c, t)
        if r < 0 or not shape_ok(c[r + 3], shape, tn):
            continue
        if logistics and c[C_COST + t] > logi:
            continue
        eff = c[r + 1]
        if eff == E_SIEGE:
            n = _emit_simple(acts, n, A_SIEGE, -1, t)
        elif eff == E_SURPRISE:
            units = s[b + PB_HAND_MASK] & c[C_M_UNIT] & ~c[C_M_STR + INF]
            while units != 0:
                lowu = units & -units
                units ^= lowu
                u = low_index(lowu)
                if c[C_STR + u] <= lim:
                    n = _emit_simple(acts, n, A_TACTIC, u, t)
        elif c[C_FLAGS + t] & F_TACTIC:
            n = _emit_simple(acts, n, A_TACTIC, -1, t)
    return n


@hot
def fortify_ok(s, c, p):
    """May the leader take 小田原城's fortify action (R11, odawara_fortify)?"""
    b = pb(p)
    return (c[C_RULES + R_ODAWARA_FORTIFY] != 0 and s[b + PB_LOGI_N] >= 2
            and s[b + PB_DECK_N] > 0 and wall_total(s, p) < c[C_RULES + R_WALLS]
            and castle_row(s, c, p, T_STANDING, E_ODAWARA) >= 0)


@kernel
def legal_actions(s, c, acts, wk):
    """Fill ``acts`` with the legal decisions of the player to move; returns their number.
    The leader's automatic draw must already have happened (``begin_turn``)."""
    phase = s[G_PHASE]
    p = s[G_TO_MOVE]
    b = pb(p)
    n = 0
    if phase == PH_MULLIGAN:
        n = _emit_simple(acts, n, A_KEEP, -1, -1)
        return _emit_simple(acts, n, A_MULLIGAN, -1, -1)
    if phase == PH_OVER or phase == PH_LEADER_START:
        return 0
    kur = first_in(s, c, p, c[C_M_KURUMA])
    pres = gather_hand(s, c, p, wk)
    if phase == PH_RESPONSE:
        n = _emit_simple(acts, n, A_PASS, -1, -1)
        n = _answers(s, c, p, acts, n, kur, wk, pres)
        n = _tactics_and_sieges(s, c, p, acts, n)
    else:
        if phase == PH_LEADER:
            m = s[b + PB_UP_MASK]
            while m != 0:
                low = m & -m
                m ^= low
                n = _emit_simple(acts, n, A_RETURN, low_index(low), -1)
        n0 = n
        n = _leads(s, c, p, acts, n, kur, wk, pres)
        if c[C_RULES + R_PASS_ONLY_IF_NO_PLAY] == 0 or n == n0:
            n = _emit_simple(acts, n, A_MIOKURI, -1, -1)
        if s[b + PB_CASTLE] < 0:
            m = s[b + PB_HAND_MASK] & c[C_M_CASTLE]
            while m != 0:
                low = m & -m
                m ^= low
                n = _emit_simple(acts, n, A_BUILD, -1, low_index(low))
        if c[C_RULES + R_LOGISTICS] != 0 and s[b + PB_LOGI_N] < 10:
            m = s[b + PB_HAND_MASK]
            while m != 0:
                low = m & -m
                m ^= low
                n = _emit_simple(acts, n, A_LOGISTICS, -1, low_index(low))
        if fortify_ok(s, c, p):
            n = _emit_simple(acts, n, A_FORTIFY, -1, -1)
    if n >= MAXA:
        s[G_ERROR] = 2
    return n
