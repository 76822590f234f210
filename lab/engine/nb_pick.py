"""The random bot's decision without listing every legal step.

``legal_actions`` writes every distinct step, but a uniform pick needs only how many there are
and the one that was drawn. ``random_pick`` splits the steps into the same groups, in the same
order, as ``legal_actions`` (the returns, the sets of one strength, the runs of one length, …),
counts each group in closed form — distinct multisets of equal-strength cards, products for runs,
twins for 鉄砲 fire and 車懸り — draws k with the play stream exactly as the enumerating bot
does, and emits only the group that holds the k-th step. So ``acts[0]`` is always
``legal_actions(...)[k]`` and every random game is the same game as before, only faster
(tests/test_pick.py checks this state by state and game by game).
"""

from lab.engine.jit import hot, kernel

from lab.engine.layout import *  # noqa: F403
from lab.engine.nb_actions import (WK_GROUPS, WK_NGROUPS, _all_runs, _answers, _emit_simple,
                                   _equal_sets, _run_starts, _tactics_and_sieges,
                                   first_in, fortify_ok, gather_hand)
from lab.engine.nb_core import logi_limit, low_index, pb, rand_below
from lab.rules import R_LOGISTICS, R_PASS_ONLY_IF_NO_PLAY

# group table in the scratch array (nb_actions.WK_GROUPS, 40 rows): code, kind, arg, count
WK_GRP = WK_GROUPS
GRP_W = 4
WK_TOTAL = WK_NGROUPS + 1  # the steps counted so far (the slot before the table)

GR_ONE = 1  # a single step without cards (pass, 見送り, fortify, keep, mulligan); arg unused
GR_RETURN = 2  # one 帰陣 per face-up camp type; arg = mask
GR_BUILD = 3  # one 築城 per castle type in hand; arg = mask
GR_LOGISTICS = 4  # one 兵站 per card type in hand; arg = mask
GR_EQUAL = 5  # sets of one strength; arg = v | k_lo << 8 | k_hi << 16
GR_INF = 6  # single ∞ units; arg unused
GR_RUNS = 7  # runs of one length; arg = length | above << 8
GR_LISTED = 8  # counted by listing it (answers to ∞, tactics and sieges: rare and short)


@hot
def _popcount(m):
    n = 0
    while m != 0:
        m &= m - 1
        n += 1
    return n


@hot
def _add(wk, g, code, kind, arg, count):
    """Append a group of ``count`` steps (none: nothing) and add them to the running total."""
    if count > 0:
        r = WK_GRP + g * GRP_W
        wk[r] = code
        wk[r + 1] = kind
        wk[r + 2] = arg
        wk[r + 3] = count
        wk[WK_TOTAL] += count
        return g + 1
    return g


@hot
def _multisets(s, hb, mask, k):
    """Distinct multisets of ``k`` cards among the card types of ``mask`` in the hand at
    ``hb``: the coefficient of x**k in the product over types of 1 + x + … + x**copies."""
    d1 = 0
    d2 = 0
    d3 = 0
    d4 = 0
    d5 = 0
    while mask != 0:
        low = mask & -mask
        mask ^= low
        h = s[hb + low_index(low)]
        # times 1 + x + … + x**h, highest degree first so each term uses the old lower ones
        d5 += d4 * (h >= 1) + d3 * (h >= 2) + d2 * (h >= 3) + d1 * (h >= 4) + (h >= 5)
        d4 += d3 * (h >= 1) + d2 * (h >= 2) + d1 * (h >= 3) + (h >= 4)
        d3 += d2 * (h >= 1) + d1 * (h >= 2) + (h >= 3)
        d2 += d1 * (h >= 1) + (h >= 2)
        d1 += 1
    if k == 1:
        return d1
    if k == 2:
        return d2
    if k == 3:
        return d3
    if k == 4:
        return d4
    if k == 5:
        return d5
    return 0


@hot
def _equal_count(s, c, hb, mv, k_lo, k_hi, answer, twins):
    """How many steps ``_equal_sets`` emits for the hand's types ``mv`` of one strength, sizes
    k_lo…k_hi (鉄砲 twins on answers, 車懸り twins through ``twins``)."""
    total = 0
    if mv & (mv - 1) == 0:
        have = s[hb + low_index(mv)]
        top = k_hi if k_hi < have else have
        if top >= k_lo:
            total = top - k_lo + 1
            if answer and mv & c[C_M_GUN]:
                total *= 2
        return total * twins
    gunless = mv & ~c[C_M_GUN]
    for k in range(k_lo, k_hi + 1):
        all_sets = _multisets(s, hb, mv, k)
        total += all_sets
        if answer and gunless != mv:
            total += all_sets - _multisets(s, hb, gunless, k)
    return total * twins


@hot
def _runs_count(c, units, pres, lim, length, above, answer, twins):
    """How many steps ``_all_runs`` emits (one card type per strength; 鉄砲 twins on answers)."""
    starts = _run_starts(pres, length, lim)
    starts &= ~((1 << (above - length + 2)) - 1) if above - length + 2 > 0 else -1
    total = 0
    while starts != 0:
        low = starts & -starts
        starts ^= low
        v0 = low_index(low)
        combos = 1
        gunless = 1
        for v in range(v0, v0 + length):
            mv = units & c[C_M_STR + v]
            combos *= _popcount(mv)
            gunless *= _popcount(mv & ~c[C_M_GUN])
        total += combos + (combos - gunless if answer else 0)
    return total * twins


@hot
def _count_groups(s, c, acts, wk):
    """Fill the group table for the player to move, in legal_actions' order; returns its size.
    Works from the hand's bitmasks alone: nothing is listed unless it is rare and short."""
    phase = s[G_PHASE]
    p = s[G_TO_MOVE]
    b = pb(p)
    hb = b + PB_HAND
    g = 0
    wk[WK_TOTAL] = 0
    if phase == PH_MULLIGAN:
        g = _add(wk, g, GR_ONE, A_KEEP, 0, 1)
        return _add(wk, g, GR_ONE, A_MULLIGAN, 0, 1)
    if phase == PH_OVER or phase == PH_LEADER_START:
        return 0
    hand = s[b + PB_HAND_MASK]
    units = hand & c[C_M_UNIT]
    kur = hand & c[C_M_KURUMA]
    twins = 2 if kur != 0 else 1
    pres = 0
    for v in range(1, 12):
        if units & c[C_M_STR + v]:
            pres |= 1 << v
    lim = logi_limit(s, c, p)
    top = 10 if lim > 10 else lim
    if phase == PH_RESPONSE:
        g = _add(wk, g, GR_ONE, A_PASS, 0, 1)
        shape = s[G_TOP_SHAPE]
        tn = s[G_TOP_N]
        ts = s[G_TOP_STR]
        if shape == SHAPE_SAME:
            m = pres & ((1 << (top + 1)) - 1) & ~((1 << (ts + 1)) - 1) & 0x7FE
            while m != 0:
                low = m & -m
                m ^= low
                v = low_index(low)
                g = _add(wk, g, GR_EQUAL, A_ANSWER, v | tn << 8 | tn << 16,
                         _equal_count(s, c, hb, units & c[C_M_STR + v], tn, tn, True, twins))
            if tn == 1 and lim >= 10 and pres & (1 << INF):
                mi = units & c[C_M_STR + INF]
                g = _add(wk, g, GR_INF, A_ANSWER, 0,
                         (_popcount(mi) + _popcount(mi & c[C_M_GUN])) * twins)
        elif shape == SHAPE_RUN:
            g = _add(wk, g, GR_RUNS, A_ANSWER, tn | ts << 8,
                     _runs_count(c, units, pres, lim, tn, ts, True, twins))
        else:
            g = _add(wk, g, GR_LISTED, A_ANSWER, 0,
                     _answers(s, c, p, acts, 0, first_in(s, c, p, c[C_M_KURUMA]), wk, pres))
        if hand & (c[C_M_TACTIC] | c[C_M_CASTLE]):
            g = _add(wk, g, GR_LISTED, A_TACTIC, 0, _tactics_and_sieges(s, c, p, acts, 0))
        return g
    if phase == PH_LEADER:
        g = _add(wk, g, GR_RETURN, A_RETURN, s[b + PB_UP_MASK], _popcount(s[b + PB_UP_MASK]))
    g0 = g
    m = pres & ((1 << (top + 1)) - 1) & 0x7FE
    while m != 0:
        low = m & -m
        m ^= low
        v = low_index(low)
        g = _add(wk, g, GR_EQUAL, A_LEAD, v | 1 << 8 | 4 << 16,
                 _equal_count(s, c, hb, units & c[C_M_STR + v], 1, 4, False, twins))
    if lim >= 10 and pres & (1 << INF):
        g = _add(wk, g, GR_INF, A_LEAD, 0, _popcount(units & c[C_M_STR + INF]) * twins)
    if pres & (pres >> 1) & (pres >> 2) & 0x7FE:
        for length in range(3, 6):
            g = _add(wk, g, GR_RUNS, A_LEAD, length,
                     _runs_count(c, units, pres, lim, length, 0, False, twins))
    if c[C_RULES + R_PASS_ONLY_IF_NO_PLAY] == 0 or g == g0:
        g = _add(wk, g, GR_ONE, A_MIOKURI, 0, 1)
    if s[b + PB_CASTLE] < 0:
        m = hand & c[C_M_CASTLE]
        g = _add(wk, g, GR_BUILD, A_BUILD, m, _popcount(m))
    if c[C_RULES + R_LOGISTICS] != 0 and s[b + PB_LOGI_N] < 10:
        g = _add(wk, g, GR_LOGISTICS, A_LOGISTICS, hand, _popcount(hand))
    if fortify_ok(s, c, p):
        g = _add(wk, g, GR_ONE, A_FORTIFY, 0, 1)
    return g


@hot
def _nth_bit(m, j):
    for _ in range(j):
        m &= m - 1
    return low_index(m & -m)


@hot
def _emit_one_type(s, c, acts, kind, i, k_lo, j, kur):
    """Step j of the sets of k_lo, k_lo+1, … copies of the single type i, each followed by its
    twins in _emit_set's order: plain, fire, 車懸り, 車懸り with fire."""
    gun = kind == A_ANSWER and c[C_FLAGS + i] & F_GUN != 0
    shift = (1 if gun else 0) + (1 if kur >= 0 else 0)  # twins per set: 1, 2 or 4
    k = k_lo + (j >> shift)
    t = j & ((1 << shift) - 1)
    acts[0, AX_KIND] = kind
    acts[0, AX_N] = k
    for x in range(5):
        acts[0, AX_C0 + x] = i if x < k else -1
    if gun:
        acts[0, AX_KUR] = kur if t >= 2 else -1
        acts[0, AX_FIRE] = t & 1
    else:
        acts[0, AX_KUR] = kur if t >= 1 else -1
        acts[0, AX_FIRE] = 0
    acts[0, AX_X] = -1


@hot
def _emit_singles(c, acts, kind, mask, j, kur):
    """Step j of the singles of the types in ``mask``, each with _emit_set's twins (fire on
    answers with a gun, then 車懸り); False if j lies beyond the singles."""
    while mask != 0:
        low = mask & -mask
        mask ^= low
        i = low_index(low)
        gun = kind == A_ANSWER and c[C_FLAGS + i] & F_GUN != 0
        per = (2 if gun else 1) * (2 if kur >= 0 else 1)
        if j < per:
            acts[0, AX_KIND] = kind
            acts[0, AX_N] = 1
            acts[0, AX_C0] = i
            for x in range(1, 5):
                acts[0, AX_C0 + x] = -1
            acts[0, AX_KUR] = kur if j >= (2 if gun else 1) else -1
            acts[0, AX_FIRE] = j & 1 if gun else 0
            acts[0, AX_X] = -1
            return True
        j -= per
    return False


@kernel
def _emit_listed(s, c, acts, wk, g, j):
    """Step j of group g by listing the group with legal_actions' own emitters (runs, sets of
    two or more cards among several types, answers to ∞, tactics)."""
    r = WK_GRP + g * GRP_W
    code = wk[r]
    kind = wk[r + 1]
    arg = wk[r + 2]
    p = s[G_TO_MOVE]
    kur = first_in(s, c, p, c[C_M_KURUMA])
    pres = gather_hand(s, c, p, wk)
    if code == GR_EQUAL:
        _equal_sets(s, c, p, acts, 0, kind, arg & 0xFF, (arg >> 8) & 0xFF, arg >> 16, kur, wk)
    elif code == GR_RUNS:
        _all_runs(s, c, p, acts, 0, kind, pres, logi_limit(s, c, p), arg & 0xFF, arg >> 8, kur,
                  wk)
    elif kind == A_ANSWER:
        _answers(s, c, p, acts, 0, kur, wk, pres)
    else:
        _tactics_and_sieges(s, c, p, acts, 0)
    if j > 0:
        for x in range(AW):
            acts[0, x] = acts[j, x]


@hot
def _emit_group(s, c, acts, wk, g, j):
    """Write the j-th step of group g into ``acts[0]``."""
    r = WK_GRP + g * GRP_W
    code = wk[r]
    kind = wk[r + 1]
    arg = wk[r + 2]
    p = s[G_TO_MOVE]
    if code == GR_ONE:
        _emit_simple(acts, 0, kind, -1, -1)
        return
    if code == GR_RETURN:
        _emit_simple(acts, 0, kind, _nth_bit(arg, j), -1)
        return
    if code == GR_BUILD or code == GR_LOGISTICS:
        _emit_simple(acts, 0, kind, -1, _nth_bit(arg, j))
        return
    hand = s[pb(p) + PB_HAND_MASK]
    kur = first_in(s, c, p, c[C_M_KURUMA])
    if code == GR_EQUAL or code == GR_INF:
        v = arg & 0xFF if code == GR_EQUAL else INF
        k_lo = (arg >> 8) & 0xFF if code == GR_EQUAL else 1
        mv = hand & c[C_M_UNIT] & c[C_M_STR + v]
        if mv & (mv - 1) == 0:
            _emit_one_type(s, c, acts, kind, low_index(mv), k_lo, j, kur)
            return
        if k_lo == 1 and _emit_singles(c, acts, kind, mv, j, kur):
            return
    _emit_listed(s, c, acts, wk, g, j)


@hot
def _locate(s, c, acts, wk, groups, k):
    for g in range(groups):
        cnt = wk[WK_GRP + g * GRP_W + 3]
        if k < cnt:
            _emit_group(s, c, acts, wk, g, k)
            return
        k -= cnt


@hot
def _total(s, wk):
    n = wk[WK_TOTAL]
    if n >= MAXA:
        s[G_ERROR] = 2
        n = MAXA
    return n


@kernel
def count_steps(s, c, acts, wk):
    """How many distinct legal steps the player to move has (``legal_actions``' count, capped
    at MAXA the same way); leaves the group table for ``nth_step``."""
    wk[WK_NGROUPS] = _count_groups(s, c, acts, wk)
    return _total(s, wk)


@kernel
def nth_step(s, c, acts, wk, k):
    """Write step k (0 ≤ k < count_steps) into ``acts[0]``: ``legal_actions(...)[k]``."""
    _locate(s, c, acts, wk, wk[WK_NGROUPS], k)


@kernel
def random_pick(s, c, acts, wk):
    """Draw the random bot's step into ``acts[0]``: uniform over the distinct legal steps, the
    same draw from the play stream and the same step as ``rand_below(n)`` over
    ``legal_actions``. Returns how many steps there were."""
    groups = _count_groups(s, c, acts, wk)
    n = _total(s, wk)
    _locate(s, c, acts, wk, groups, rand_below(s, G_RNG, n))
    return n
