"""The heuristic bot: scores every legal action from what its seat may see and takes the best.

A rule-of-thumb player with named parameters (``BP_*``, values ×100 where they are weights): how
much a broken opponent wall and a lost own wall are worth, how dear a card's strength is, how long
∞ is held back, how eagerly tactics, castles, gun fire, 見送り and big leads are used, what is
returned with 帰陣, and whether to mulligan. Personas are parameter sets (``lab.bots.personas``).

It reads only the seat's observation (rules.md R1): its own hand, both camps, the field, wall and
deck and hand counts, logistics, castles — never the opponent's hand, a deck or a wall card.
"""

from lab.bots import nb_params as P
from lab.engine.jit import hot, kernel
from lab.engine import layout as L
from lab.engine.nb_actions import response_row
from lab.engine.nb_core import amount_of, effect_of, pb, row_at, wall_total
from lab.cards.vocab import Effect
from lab.rules import R_DAMAGE_LAST_SET, R_PASS_COSTS_WALL

E_WIPE_USER = int(Effect.WIPE_FIELD_USER_LEADS)
E_WIPE_ATTACKER = int(Effect.WIPE_FIELD_ATTACKER_LEADS)
E_SURPRISE = int(Effect.SURPRISE)
E_REARGUARD = int(Effect.REARGUARD)
E_STARVE = int(Effect.STARVE)
E_EXTRA_DAMAGE = int(Effect.EXTRA_DAMAGE)
NEG = -1.0e9


@hot
def card_value(c, i):
    st = c[L.C_STR + i]
    if st == L.INF:
        return 13.0
    if st > 0:
        v = float(st)
        if c[L.C_FLAGS + i] & L.F_ASSASSIN:
            v += 3.0
        return v
    return 6.0  # a tactic or castle


@hot
def _pow(x, k):
    r = 1.0
    for _ in range(k):
        r *= x
    return r


@hot
def answer_prob(k, top, shape, hand):
    """Rough chance that a hand of ``hand`` unknown cards can beat a set of ``k`` cards whose
    highest strength is ``top`` (∞ = 11)."""
    if hand <= 0:
        return 0.0
    if shape == L.SHAPE_INF:
        return 0.12
    q = (10.0 - top) / 10.0
    if q < 0.0:
        q = 0.0
    if k == 1:
        q += 0.06
    single = 1.0 - _pow(1.0 - q, hand)
    if shape == L.SHAPE_RUN:
        return single * _pow(0.12, k - 2)
    return single * _pow(0.3, k - 1) + 0.04


@hot
def _set_stats(c, a):
    """(card value sum, highest strength, shape, extra damage if it wins) of an action's set."""
    k = a[L.AX_N]
    val = 0.0
    top = 0
    first = c[L.C_STR + a[L.AX_C0]]
    same = True
    bonus = 0
    for j in range(k):
        i = a[L.AX_C0 + j]
        val += card_value(c, i)
        st = c[L.C_STR + i]
        if st > top:
            top = st
        if st != first:
            same = False
        for q in range(L.ROWS_PER_CARD):
            r = row_at(i, q)
            if effect_of(c, r) == E_EXTRA_DAMAGE:
                bonus += amount_of(c, r)
    shape = L.SHAPE_SAME
    if k == 1 and top == L.INF:
        shape = L.SHAPE_INF
    elif not same:
        shape = L.SHAPE_RUN
    return val, top, shape, bonus


@hot
def _field_value(s, c, p):
    b = pb(p)
    v = 0.0
    m = s[b + L.PB_FIELD_MASK]
    for i in range(c[L.C_NLOC]):
        if (m >> i) & 1:
            v += card_value(c, i) * s[b + L.PB_FIELD + i]
    return v


@hot  # inlined into the loops that score every legal action: ~20% faster heuristic games
def score_action(s, c, a, bot):
    """The heuristic value of action row ``a`` for the player to move (higher is better)."""
    p = s[L.G_TO_MOVE]
    q = 1 - p
    kind = a[L.AX_KIND]
    wall_gain = bot[P.BP_WALL_GAIN] / 100.0
    wall_loss = bot[P.BP_WALL_LOSS] / 100.0
    card = bot[P.BP_CARD] / 100.0
    my_walls = wall_total(s, p)
    opp_walls = wall_total(s, q)
    opp_hand = s[pb(q) + L.PB_HAND_N]
    if kind == L.A_RETURN:
        v = card_value(c, a[L.AX_C0])
        return 1.0e6 + v if v >= bot[P.BP_RETURN_MIN] else NEG
    if kind == L.A_KEEP:
        return 0.0
    if kind == L.A_MULLIGAN:
        return 1.0 if bot[P.BP_MULLIGAN] != 0 else -1.0
    if kind == L.A_MIOKURI:
        cost = c[L.C_RULES + R_PASS_COSTS_WALL] != 0
        if cost and my_walls <= 1:
            return NEG
        return bot[P.BP_MIOKURI] / 100.0 - (wall_loss if cost else 0.0) + (card * 5.0 if cost else 0.0)
    if kind == L.A_BUILD:
        return bot[P.BP_BUILD] / 100.0 + card * 5.0
    if kind == L.A_FORTIFY:
        return wall_loss * 0.8
    if kind == L.A_LOGISTICS:
        return 0.3 * wall_gain - card * card_value(c, a[L.AX_X]) * 0.4
    if kind == L.A_LEAD:
        val, top, shape, bonus = _set_stats(c, a)
        k = a[L.AX_N]
        pa = answer_prob(k, top, shape, opp_hand)
        gain = wall_gain * (1 + bonus)
        if 1 + bonus >= opp_walls:
            gain = 1.0e4
        sc = (1.0 - pa) * gain - pa * card * val - 0.15 * card * val + bot[P.BP_BIG] / 100.0 * (k - 1)
        if shape == L.SHAPE_INF and opp_walls > 2:
            sc -= wall_gain * bot[P.BP_INF_RESERVE] / 100.0
        if a[L.AX_KURUMAGAKARI] >= 0:
            sc -= card * 2.0 * (1.0 - pa)
        return sc
    # ---- responses
    attacker = s[L.G_TOP_OWNER]
    po = s[L.G_TOP_N] if c[L.C_RULES + R_DAMAGE_LAST_SET] != 0 else s[L.G_PLAYS + attacker]
    pm = s[L.G_PLAYS + p]
    danger = wall_loss * po
    if po >= my_walls:
        danger = 1.0e4
    if kind == L.A_PASS:
        return -danger
    if kind == L.A_SIEGE:
        return bot[P.BP_TACTIC] / 100.0 - card * 3.0
    if kind == L.A_TACTIC:
        t = a[L.AX_X]
        r = response_row(c, t)
        eff = effect_of(c, r)
        base = bot[P.BP_TACTIC] / 100.0 - card * 2.0
        if eff == E_WIPE_USER:
            return base + card * 0.8 * (_field_value(s, c, q) - _field_value(s, c, p))
        if eff == E_WIPE_ATTACKER:
            return base + card * 0.8 * (_field_value(s, c, q) - _field_value(s, c, p)) - 0.3 * wall_gain
        if eff == E_REARGUARD:
            left = po - amount_of(c, r)
            if left < 0:
                left = 0
            return base - (1.0e4 if left >= my_walls else wall_loss * left)
        if eff == E_STARVE:
            return base + card * 5.0 + (wall_gain if s[L.G_TOP_SHAPE] == L.SHAPE_INF else 0.0)
        if eff == E_SURPRISE:
            u = a[L.AX_C0]
            pa = answer_prob(1, c[L.C_STR + u], L.SHAPE_SAME, opp_hand)
            win = wall_gain * (pm + 1) if pm + 1 < opp_walls else 1.0e4
            return base + (1.0 - pa) * win - pa * (card * card_value(c, u) + danger)
        return base
    # answers
    val, top, shape, bonus = _set_stats(c, a)
    k = a[L.AX_N]
    i0 = a[L.AX_C0]
    if s[L.G_TOP_SHAPE] == L.SHAPE_INF:
        if c[L.C_FLAGS + i0] & L.F_ASSASSIN:
            return 1.0e5
        # 天下布武: three random hand cards die
        return wall_gain * (pm + 1) - card * 3.0 * 6.0 + 0.5 * danger
    if a[L.AX_FIRE] != 0:
        return bot[P.BP_FIRE] / 100.0 + 0.5 * card * _field_value(s, c, q) - 0.1 * card * val
    pa = answer_prob(k, top, shape, opp_hand)
    win = wall_gain * (pm + 1 + bonus)
    if pm + 1 + bonus >= opp_walls:
        win = 1.0e4
    sc = (1.0 - pa) * win - pa * (card * val + danger) - 0.1 * card * val
    if shape == L.SHAPE_INF and po < bot[P.BP_INF_RESERVE] / 100.0 and opp_walls > 2 and po < my_walls:
        sc -= wall_gain * 2.0
    if a[L.AX_KURUMAGAKARI] >= 0:
        sc -= card * 2.0 * (1.0 - pa)
    return sc


@kernel
def heuristic_choose(s, c, acts, n, bot):
    if n <= 1:
        return 0
    best = 0
    best_score = NEG * 10.0
    for k in range(n):
        sc = score_action(s, c, acts[k], bot)
        if sc > best_score:
            best_score = sc
            best = k
    return best
