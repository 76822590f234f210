"""The random bot's decision without listing every legal step.

A uniform pick needs only how many legal steps there are and the one that was drawn.
``random_pick`` takes the step plan (``nb_actions.plan``, the one description of what is legal)
with each group counted in closed form — distinct multisets of equal-strength cards, products for
runs, twins for 鉄砲 fire and 車懸り — draws k with the play stream exactly as a pick over
``legal_actions`` would, and emits only the k-th step: built directly for the common groups, or by
listing its group with the plan's own emitter (``nb_actions.emit_group``). So ``acts[0]`` is
always ``legal_actions(...)[k]`` and every random game is the same game as a listing bot's, only
faster (tests/test_pick.py checks this state by state and game by game).
"""

from lab.games.daitenka.engine import layout as L
from lab.jit import hot, kernel
from lab.games.daitenka.engine.nb_actions import (
    GR_BUILD,
    GR_EQUAL,
    GR_INF,
    GR_LOGISTICS,
    GR_ONE,
    GR_RETURN,
    emit_group,
    plan,
    plan_inline,
)
from lab.games.daitenka.engine.nb_core import hand_mask, low_index, rand_below
from lab.games.daitenka.engine.nb_emit import (
    WK_NGROUPS,
    WK_TOTAL,
    emit_simple,
    first_in,
    plan_row,
    gather_hand,
)


@hot
def _nth_bit(m, j):
    for _ in range(j):
        m &= m - 1
    return low_index(m & -m)


@hot
def _emit_one_type(s, c, acts, kind, i, k_lo, j, kurumagakari):
    """Step j of the sets of k_lo, k_lo+1, … copies of the single type i, each followed by its
    twins in emit_set's order: plain, fire, 車懸り, 車懸り with fire."""
    gun = kind == L.A_ANSWER and c[L.C_FLAGS + i] & L.F_GUN != 0
    shift = (1 if gun else 0) + (1 if kurumagakari >= 0 else 0)  # twins per set: 1, 2 or 4
    k = k_lo + (j >> shift)
    t = j & ((1 << shift) - 1)
    acts[0, L.AX_KIND] = kind
    acts[0, L.AX_N] = k
    for x in range(5):
        acts[0, L.AX_C0 + x] = i if x < k else -1
    if gun:
        acts[0, L.AX_KURUMAGAKARI] = kurumagakari if t >= 2 else -1
        acts[0, L.AX_FIRE] = t & 1
    else:
        acts[0, L.AX_KURUMAGAKARI] = kurumagakari if t >= 1 else -1
        acts[0, L.AX_FIRE] = 0
    acts[0, L.AX_X] = -1


@hot
def _emit_singles(c, acts, kind, mask, j, kurumagakari):
    """Step j of the singles of the types in ``mask``, each with emit_set's twins (fire on
    answers with a gun, then 車懸り); False if j lies beyond the singles."""
    while mask != 0:
        low = mask & -mask
        mask ^= low
        i = low_index(low)
        gun = kind == L.A_ANSWER and c[L.C_FLAGS + i] & L.F_GUN != 0
        per = (2 if gun else 1) * (2 if kurumagakari >= 0 else 1)
        if j < per:
            acts[0, L.AX_KIND] = kind
            acts[0, L.AX_N] = 1
            acts[0, L.AX_C0] = i
            for x in range(1, 5):
                acts[0, L.AX_C0 + x] = -1
            acts[0, L.AX_KURUMAGAKARI] = kurumagakari if j >= (2 if gun else 1) else -1
            acts[0, L.AX_FIRE] = j & 1 if gun else 0
            acts[0, L.AX_X] = -1
            return True
        j -= per
    return False


@kernel
def _emit_listed(s, c, acts, wk, g, j):
    """Step j of group g by listing the group with the plan's emitter (runs, sets of two or
    more cards among several types, answers to ∞, tactics)."""
    p = s[L.G_TO_MOVE]
    pres = gather_hand(s, c, p, wk)
    emit_group(s, c, acts, 0, wk, g, pres, first_in(s, c, p, c[L.C_M_KURUMAGAKARI]))
    if j > 0:
        for x in range(L.AW):
            acts[0, x] = acts[j, x]


@hot
def _emit_step(s, c, acts, wk, g, j):
    """Write the j-th step of group g into ``acts[0]``."""
    code, kind, arg, _ = plan_row(wk, g)
    p = s[L.G_TO_MOVE]
    if code == GR_ONE:
        emit_simple(acts, 0, kind, -1, -1)
        return
    if code == GR_RETURN:
        emit_simple(acts, 0, kind, _nth_bit(arg, j), -1)
        return
    if code == GR_BUILD or code == GR_LOGISTICS:
        emit_simple(acts, 0, kind, -1, _nth_bit(arg, j))
        return
    if code == GR_EQUAL or code == GR_INF:
        kurumagakari = first_in(s, c, p, c[L.C_M_KURUMAGAKARI])
        v = arg & 0xFF if code == GR_EQUAL else L.INF
        k_lo = (arg >> 8) & 0xFF if code == GR_EQUAL else 1
        mv = hand_mask(s, p) & c[L.C_M_UNIT] & c[L.C_M_STR + v]
        if mv & (mv - 1) == 0:
            _emit_one_type(s, c, acts, kind, low_index(mv), k_lo, j, kurumagakari)
            return
        if k_lo == 1 and _emit_singles(c, acts, kind, mv, j, kurumagakari):
            return
    _emit_listed(s, c, acts, wk, g, j)


@hot
def _locate(s, c, acts, wk, groups, k):
    for g in range(groups):
        cnt = plan_row(wk, g)[3]
        if k < cnt:
            _emit_step(s, c, acts, wk, g, k)
            return
        k -= cnt


@hot
def _total(s, wk):
    n = wk[WK_TOTAL]
    if n >= L.MAXA:
        s[L.G_ERROR] = 2
        n = L.MAXA
    return n


@kernel
def count_steps(s, c, acts, wk):
    """How many distinct legal steps the player to move has (``legal_actions``' count, capped
    at MAXA the same way); leaves the counted plan for ``nth_step``."""
    plan(s, c, acts, wk, True)
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
    # the plan inlined (a second compiled copy): the random bot's decision is a few hundred
    # nanoseconds, and the call cost it about 6% of its games per second
    groups = plan_inline(s, c, acts, wk, True)
    n = _total(s, wk)
    _locate(s, c, acts, wk, groups, rand_below(s, L.G_RNG, n))
    return n
