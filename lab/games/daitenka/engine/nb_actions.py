"""Legal actions from one description: the step plan (rules.md R4, R5, R7–R11).

``plan`` says, for the player to move, which groups of decisions are legal and in what order —
the returns, the sets of each strength, the ∞ singles, the runs of each length, 見送り, the
builds, … — each group a row (code, kind, argument, count) of a small table in the scratch
array. Everything that decides legality is here, once; the two ways of using a plan only follow
it: ``legal_actions`` lists every step of every group with ``nb_emit``'s emitters, and the random
bot (``nb_pick``) counts the groups and emits just the step it drew. ``tests/test_pick.py``
checks, state by state, that the k-th counted step is the k-th listed one.

Each distinct step string of the scenario grammar appears exactly once, cards in local-id order,
so a uniform pick over the rows is a uniform pick over distinct steps. No state is changed.
"""

from lab.games.daitenka.cards.vocab import Effect, Trigger
from lab.games.daitenka.engine import layout as L
from lab.jit import hot, kernel
from lab.games.daitenka.engine.nb_core import (
    amount_of,
    castle_row,
    deck_count,
    hand_mask,
    logi_count,
    logi_limit,
    low_index,
    numval,
    pb,
    up_mask,
    wall_total,
)
from lab.games.daitenka.engine.nb_emit import (
    GRP_W,
    MAX_GROUPS,
    WK_GROUPS,
    WK_NGROUPS,
    WK_SIZE,
    WK_TOTAL,
    all_runs,
    emit_equal,
    emit_simple,
    equal_sets,
    first_in,
    gather_hand,
    plan_row,
    response_row,
    run_starts,
    special_answers,
    tactics_and_sieges,
)
from lab.games.daitenka.rules import R_LOGISTICS, R_PASS_ONLY_IF_NO_PLAY, R_WALLS

T_STANDING = int(Trigger.STANDING)
E_ODAWARA_FORTIFY = int(Effect.ODAWARA_FORTIFY)

# group codes of the plan; arg is what the group's emitter needs
GR_ONE = 1  # a single step without cards (pass, 見送り, fortify, keep, mulligan); arg unused
GR_RETURN = 2  # one 帰陣 per face-up camp type; arg = mask
GR_BUILD = 3  # one 築城 per castle type in hand; arg = mask
GR_LOGISTICS = 4  # one 兵站 per card type in hand; arg = mask
GR_EQUAL = 5  # sets of one strength; arg = v | k_lo << 8 | k_hi << 16
GR_INF = 6  # single ∞ units; arg unused
GR_RUNS = 7  # runs of one length; arg = length | above << 8
GR_LISTED = 8  # the answers to an ∞ (kind A_ANSWER) or the tactics and sieges (A_TACTIC)

__all__ = [
    "WK_SIZE",
    "legal_actions",
    "has_lead",
    "fortify_row",
    "response_row",
    "plan",
    "plan_inline",
]


# ------------------------------------------------------------------ small rules
@kernel
def has_lead(s, c, p):
    """Can p lead any set (a single unit within the logistics limit is enough)?"""
    mask = hand_mask(s, p)
    lim = logi_limit(s, c, p)
    for v in range(1, 12):
        if mask & c[L.C_M_STR + v] != 0 and numval(v) <= lim:
            return True
    return False


@hot
def fortify_row(s, c, p):
    """The row of p's standing castle that allows the 総構え leader action (odawara = fortify,
    R4, R11) when it is legal now — logistics to pay its amount, a deck card to add, room on the
    walls (ruling T6) — or -1."""
    r = castle_row(s, c, p, T_STANDING, E_ODAWARA_FORTIFY)
    if r < 0:
        return -1
    if (
        logi_count(s, p) >= amount_of(c, r)
        and deck_count(s, p) > 0
        and wall_total(s, p) < c[L.C_RULES + R_WALLS]
    ):
        return r
    return -1


# ------------------------------------------------------------------ counting a group
@hot
def _popcount(m):
    n = 0
    while m != 0:
        m &= m - 1
        n += 1
    return n


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
    """How many steps ``equal_sets`` emits for the hand's types ``mv`` of one strength, sizes
    k_lo…k_hi (鉄砲 twins on answers, 車懸り twins through ``twins``)."""
    total = 0
    if mv & (mv - 1) == 0:
        have = s[hb + low_index(mv)]
        top = k_hi if k_hi < have else have
        if top >= k_lo:
            total = top - k_lo + 1
            if answer and mv & c[L.C_M_GUN]:
                total *= 2
        return total * twins
    gunless = mv & ~c[L.C_M_GUN]
    for k in range(k_lo, k_hi + 1):
        all_sets = _multisets(s, hb, mv, k)
        total += all_sets
        if answer and gunless != mv:
            total += all_sets - _multisets(s, hb, gunless, k)
    return total * twins


@hot
def _runs_count(c, units, pres, lim, length, above, answer, twins):
    """How many steps ``all_runs`` emits (one card type per strength; 鉄砲 twins on answers)."""
    starts = run_starts(pres, length, lim)
    starts &= ~((1 << (above - length + 2)) - 1) if above - length + 2 > 0 else -1
    total = 0
    while starts != 0:
        low = starts & -starts
        starts ^= low
        v0 = low_index(low)
        combos = 1
        gunless = 1
        for v in range(v0, v0 + length):
            mv = units & c[L.C_M_STR + v]
            combos *= _popcount(mv)
            gunless *= _popcount(mv & ~c[L.C_M_GUN])
        total += combos + (combos - gunless if answer else 0)
    return total * twins


# ------------------------------------------------------------------ the plan
@hot
def _add(wk, g, code, kind, arg, count):
    """Append a group of ``count`` steps (none: nothing) and add them to the running total."""
    if count > 0 and g < MAX_GROUPS:
        r = WK_GROUPS + g * GRP_W
        wk[r] = code
        wk[r + 1] = kind
        wk[r + 2] = arg
        wk[r + 3] = count
        wk[WK_TOTAL] += count
        return g + 1
    return g


@hot
def _equal_groups(s, c, wk, g, hb, units, strengths, kind, k_lo, k_hi, twins, counting):
    """One GR_EQUAL group per strength of the mask ``strengths``: the sets of k_lo…k_hi
    equal-strength cards (answers: 鉄砲 twins), counted exactly with ``counting``."""
    while strengths != 0:
        low = strengths & -strengths
        strengths ^= low
        v = low_index(low)
        n = 1
        if counting:
            n = _equal_count(
                s, c, hb, units & c[L.C_M_STR + v], k_lo, k_hi, kind == L.A_ANSWER, twins
            )
        g = _add(wk, g, GR_EQUAL, kind, v | k_lo << 8 | k_hi << 16, n)
    return g


@kernel
def plan(s, c, acts, wk, counting):
    """``plan_inline`` compiled once, for the listing, the counting and the heuristic."""
    return plan_inline(s, c, acts, wk, counting)


@hot
def plan_inline(s, c, acts, wk, counting):
    """Write the plan of the player to move into ``wk`` and return its number of groups. With
    ``counting`` each group holds its exact number of steps (the answers to an ∞ and the tactics
    are counted by listing them into ``acts``: rare and short); without, a group that may hold
    steps counts 1 — enough for listing, which emits what there is."""
    phase = s[L.G_PHASE]
    p = s[L.G_TO_MOVE]
    b = pb(p)
    hb = b + L.PB_HAND
    g = 0
    wk[WK_TOTAL] = 0
    if phase == L.PH_MULLIGAN:
        g = _add(wk, g, GR_ONE, L.A_KEEP, 0, 1)
        g = _add(wk, g, GR_ONE, L.A_MULLIGAN, 0, 1)
        wk[WK_NGROUPS] = g
        return g
    if phase == L.PH_OVER or phase == L.PH_LEADER_START:
        wk[WK_NGROUPS] = 0
        return 0
    hand = hand_mask(s, p)
    units = hand & c[L.C_M_UNIT]
    twins = 2 if hand & c[L.C_M_KURUMAGAKARI] != 0 else 1
    pres = 0
    for v in range(1, 12):
        if units & c[L.C_M_STR + v]:
            pres |= 1 << v
    lim = logi_limit(s, c, p)
    top = 10 if lim > 10 else lim
    if phase == L.PH_RESPONSE:
        g = _add(wk, g, GR_ONE, L.A_PASS, 0, 1)
        shape = s[L.G_TOP_SHAPE]
        tn = s[L.G_TOP_N]
        ts = s[L.G_TOP_STR]
        if shape == L.SHAPE_SAME:
            m = pres & ((1 << (top + 1)) - 1) & ~((1 << (ts + 1)) - 1) & 0x7FE
            g = _equal_groups(s, c, wk, g, hb, units, m, L.A_ANSWER, tn, tn, twins, counting)
            if tn == 1 and lim >= 10 and pres & (1 << L.INF):
                mi = units & c[L.C_M_STR + L.INF]
                g = _add(
                    wk,
                    g,
                    GR_INF,
                    L.A_ANSWER,
                    0,
                    (_popcount(mi) + _popcount(mi & c[L.C_M_GUN])) * twins,
                )
        elif shape == L.SHAPE_RUN:
            n = 1
            if counting:
                n = _runs_count(c, units, pres, lim, tn, ts, True, twins)
            g = _add(wk, g, GR_RUNS, L.A_ANSWER, tn | ts << 8, n)
        else:
            n = 1
            if counting:
                n = special_answers(s, c, p, acts, 0, first_in(s, c, p, c[L.C_M_KURUMAGAKARI]), wk)
            g = _add(wk, g, GR_LISTED, L.A_ANSWER, 0, n)
        if hand & (c[L.C_M_TACTIC] | c[L.C_M_CASTLE]):
            n = 1
            if counting:
                n = tactics_and_sieges(s, c, p, acts, 0)
            g = _add(wk, g, GR_LISTED, L.A_TACTIC, 0, n)
        wk[WK_NGROUPS] = g
        return g
    if phase == L.PH_LEADER:
        g = _add(wk, g, GR_RETURN, L.A_RETURN, up_mask(s, p), _popcount(up_mask(s, p)))
    g0 = g
    m = pres & ((1 << (top + 1)) - 1) & 0x7FE
    g = _equal_groups(s, c, wk, g, hb, units, m, L.A_LEAD, 1, 4, twins, counting)
    if lim >= 10 and pres & (1 << L.INF):
        g = _add(wk, g, GR_INF, L.A_LEAD, 0, _popcount(units & c[L.C_M_STR + L.INF]) * twins)
    # a run leads only strengths within the logistics limit (R4, R5): three consecutive ones
    # below ``top`` make the run groups, so a lead group is never empty
    low = pres & ((1 << (top + 1)) - 1) & 0x7FE
    if low & (low >> 1) & (low >> 2):
        for length in range(3, 6):
            n = 1
            if counting:
                n = _runs_count(c, units, pres, lim, length, 0, False, twins)
            g = _add(wk, g, GR_RUNS, L.A_LEAD, length, n)
    # 見送り: always, or only when no set can be led (R4 leader_pass); a lead group is never
    # empty, so "no group was added" is "no lead"
    if c[L.C_RULES + R_PASS_ONLY_IF_NO_PLAY] == 0 or g == g0:
        g = _add(wk, g, GR_ONE, L.A_MIOKURI, 0, 1)
    if s[b + L.PB_CASTLE] < 0:
        castles = hand & c[L.C_M_CASTLE]
        g = _add(wk, g, GR_BUILD, L.A_BUILD, castles, _popcount(castles))
    if c[L.C_RULES + R_LOGISTICS] != 0 and logi_count(s, p) < 10:
        g = _add(wk, g, GR_LOGISTICS, L.A_LOGISTICS, hand, _popcount(hand))
    if fortify_row(s, c, p) >= 0:
        g = _add(wk, g, GR_ONE, L.A_FORTIFY, 0, 1)
    wk[WK_NGROUPS] = g
    return g


# ------------------------------------------------------------------ listing a plan
@kernel
def emit_group(s, c, acts, n, wk, g, pres, kurumagakari):
    """Every step of group g, written from row n of ``acts``; returns the new row count.
    ``gather_hand`` must have filled the scratch (``pres`` is what it returned);
    ``kurumagakari`` is the 車懸り the player could attach (``first_in``), or -1."""
    code, kind, arg, _ = plan_row(wk, g)
    p = s[L.G_TO_MOVE]
    if code == GR_ONE:
        return emit_simple(acts, n, kind, -1, -1)
    if code == GR_RETURN or code == GR_BUILD or code == GR_LOGISTICS:
        m = arg
        while m != 0:
            low = m & -m
            m ^= low
            if code == GR_RETURN:
                n = emit_simple(acts, n, kind, low_index(low), -1)
            else:
                n = emit_simple(acts, n, kind, -1, low_index(low))
        return n
    if code == GR_EQUAL:
        return equal_sets(
            s, c, p, acts, n, kind, arg & 0xFF, (arg >> 8) & 0xFF, arg >> 16, kurumagakari, wk
        )
    if code == GR_INF:
        return emit_equal(s, c, p, acts, n, kind, L.INF, 1, kurumagakari, wk)
    if code == GR_RUNS:
        return all_runs(
            s,
            c,
            p,
            acts,
            n,
            kind,
            pres,
            logi_limit(s, c, p),
            arg & 0xFF,
            arg >> 8,
            kurumagakari,
            wk,
        )
    if kind == L.A_ANSWER:
        return special_answers(s, c, p, acts, n, kurumagakari, wk)
    return tactics_and_sieges(s, c, p, acts, n)


@kernel
def legal_actions(s, c, acts, wk):
    """Fill ``acts`` with the legal decisions of the player to move; returns their number.
    The leader's automatic draw must already have happened (``begin_turn``)."""
    groups = plan(s, c, acts, wk, False)
    p = s[L.G_TO_MOVE]
    pres = gather_hand(s, c, p, wk)
    kurumagakari = first_in(s, c, p, c[L.C_M_KURUMAGAKARI])
    n = 0
    for g in range(groups):
        n = emit_group(s, c, acts, n, wk, g, pres, kurumagakari)
    if n >= L.MAXA:
        s[L.G_ERROR] = 2
    return n
