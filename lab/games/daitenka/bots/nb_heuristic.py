"""The heuristic bot: scores every legal action from what its seat may see and takes the best.

A rule-of-thumb player with named parameters (``BP_*``, values ×100 where they are weights): how
much a broken opponent wall and a lost own wall are worth, how dear a card's strength is, how long
∞ is held back, how eagerly tactics, castles, gun fire, 見送り and big leads are used, what is
returned with 帰陣, and whether to mulligan. Personas are parameter sets (``lab.games.daitenka.bots.personas``).

It reads only the seat's observation (rules.md R1): its own hand, both camps, the field, wall and
deck and hand counts, logistics, castles — never the opponent's hand, a deck or a wall card.
"""

from lab.games.daitenka.bots import nb_params as P
from lab.jit import hot, kernel
from lab.games.daitenka.engine import layout as L
from lab.games.daitenka.engine.nb_actions import (
    GR_BUILD,
    GR_EQUAL,
    GR_INF,
    GR_LOGISTICS,
    GR_ONE,
    GR_RETURN,
    emit_group,
    legal_actions,
    plan,
    response_row,
)
from lab.games.daitenka.engine.nb_core import (
    amount_of,
    copies,
    effect_of,
    field_mask,
    hand_count,
    hand_mask,
    low_index,
    row_at,
    up_mask,
    wall_total,
)
from lab.games.daitenka.engine.nb_emit import first_in, gather_hand, plan_row
from lab.games.daitenka.cards.vocab import Effect
from lab.games.daitenka.rules import R_DAMAGE_LAST_SET, R_PASS_COSTS_WALL

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
def _damage_bonus(c, i):
    """Card i's extra damage (every 一番槍-type row counted, whatever its condition)."""
    b = 0
    for q in range(L.ROWS_PER_CARD):
        r = row_at(i, q)
        if effect_of(c, r) == E_EXTRA_DAMAGE:
            b += amount_of(c, r)
    return b


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
        bonus += _damage_bonus(c, i)
    shape = L.SHAPE_SAME
    if k == 1 and top == L.INF:
        shape = L.SHAPE_INF
    elif not same:
        shape = L.SHAPE_RUN
    return val, top, shape, bonus


@hot
def _field_value(s, c, p):
    v = 0.0
    m = field_mask(s, p)
    for i in range(c[L.C_NLOC]):
        if (m >> i) & 1:
            v += card_value(c, i) * copies(s, p, L.PB_FIELD, i)
    return v


# ---- the value of one step of each kind; ``score_action`` (a listed row) and ``heuristic_pick``
# (no listing) both call these, so a step scores the same, bit for bit, either way


@hot
def _return_score(c, i, bot):
    v = card_value(c, i)
    return 1.0e6 + v if v >= bot[P.BP_RETURN_MIN] else NEG


@hot
def _miokuri_score(c, bot, my_walls):
    wall_loss = bot[P.BP_WALL_LOSS] / 100.0
    card = bot[P.BP_CARD] / 100.0
    cost = c[L.C_RULES + R_PASS_COSTS_WALL] != 0
    if cost and my_walls <= 1:
        return NEG
    return bot[P.BP_MIOKURI] / 100.0 - (wall_loss if cost else 0.0) + (card * 5.0 if cost else 0.0)


@hot
def _build_score(bot):
    return bot[P.BP_BUILD] / 100.0 + bot[P.BP_CARD] / 100.0 * 5.0


@hot
def _fortify_score(bot):
    return bot[P.BP_WALL_LOSS] / 100.0 * 0.8


@hot
def _logistics_score(c, bot, x):
    return 0.3 * (bot[P.BP_WALL_GAIN] / 100.0) - bot[P.BP_CARD] / 100.0 * card_value(c, x) * 0.4


@hot
def _lead_score(bot, k, val, top, shape, bonus, kurumagakari, opp_hand, opp_walls):
    """A led set of ``k`` cards (value sum ``val``, highest strength ``top``, extra damage
    ``bonus``), with a 車懸り attached if ``kurumagakari``."""
    wall_gain = bot[P.BP_WALL_GAIN] / 100.0
    card = bot[P.BP_CARD] / 100.0
    pa = answer_prob(k, top, shape, opp_hand)
    gain = wall_gain * (1 + bonus)
    if 1 + bonus >= opp_walls:
        gain = 1.0e4
    sc = (1.0 - pa) * gain - pa * card * val - 0.15 * card * val + bot[P.BP_BIG] / 100.0 * (k - 1)
    if shape == L.SHAPE_INF and opp_walls > 2:
        sc -= wall_gain * bot[P.BP_INF_RESERVE] / 100.0
    if kurumagakari:
        sc -= card * 2.0 * (1.0 - pa)
    return sc


@hot
def _danger(s, c, bot, p, my_walls):
    """What passing would cost the responder: the walls the attacker's set breaks."""
    attacker = s[L.G_TOP_OWNER]
    po = s[L.G_TOP_N] if c[L.C_RULES + R_DAMAGE_LAST_SET] != 0 else s[L.G_PLAYS + attacker]
    danger = bot[P.BP_WALL_LOSS] / 100.0 * po
    if po >= my_walls:
        danger = 1.0e4
    return po, danger


@hot
def _answer_score(
    s, c, bot, k, val, top, shape, bonus, kurumagakari, fire, my_walls, opp_walls, opp_hand
):
    """An answer of ``k`` cards to a numbered set or a run (not to an ∞), fired if ``fire``."""
    p = s[L.G_TO_MOVE]
    wall_gain = bot[P.BP_WALL_GAIN] / 100.0
    card = bot[P.BP_CARD] / 100.0
    po, danger = _danger(s, c, bot, p, my_walls)
    pm = s[L.G_PLAYS + p]
    if fire:
        return bot[P.BP_FIRE] / 100.0 + 0.5 * card * _field_value(s, c, 1 - p) - 0.1 * card * val
    pa = answer_prob(k, top, shape, opp_hand)
    win = wall_gain * (pm + 1 + bonus)
    if pm + 1 + bonus >= opp_walls:
        win = 1.0e4
    sc = (1.0 - pa) * win - pa * (card * val + danger) - 0.1 * card * val
    if (
        shape == L.SHAPE_INF
        and po < bot[P.BP_INF_RESERVE] / 100.0
        and opp_walls > 2
        and po < my_walls
    ):
        sc -= wall_gain * 2.0
    if kurumagakari:
        sc -= card * 2.0 * (1.0 - pa)
    return sc


@hot  # inlined into the loops that score every legal action: ~20% faster heuristic games
def score_action(s, c, a, bot):
    """The heuristic value of action row ``a`` for the player to move (higher is better)."""
    p = s[L.G_TO_MOVE]
    q = 1 - p
    kind = a[L.AX_KIND]
    wall_gain = bot[P.BP_WALL_GAIN] / 100.0
    card = bot[P.BP_CARD] / 100.0
    my_walls = wall_total(s, p)
    opp_walls = wall_total(s, q)
    opp_hand = hand_count(s, q)
    if kind == L.A_RETURN:
        return _return_score(c, a[L.AX_C0], bot)
    if kind == L.A_KEEP:
        return 0.0
    if kind == L.A_MULLIGAN:
        return 1.0 if bot[P.BP_MULLIGAN] != 0 else -1.0
    if kind == L.A_MIOKURI:
        return _miokuri_score(c, bot, my_walls)
    if kind == L.A_BUILD:
        return _build_score(bot)
    if kind == L.A_FORTIFY:
        return _fortify_score(bot)
    if kind == L.A_LOGISTICS:
        return _logistics_score(c, bot, a[L.AX_X])
    if kind == L.A_LEAD:
        val, top, shape, bonus = _set_stats(c, a)
        return _lead_score(
            bot, a[L.AX_N], val, top, shape, bonus, a[L.AX_KURUMAGAKARI] >= 0, opp_hand, opp_walls
        )
    # ---- responses
    po, danger = _danger(s, c, bot, p, my_walls)
    pm = s[L.G_PLAYS + p]
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
            return (
                base
                + card * 0.8 * (_field_value(s, c, q) - _field_value(s, c, p))
                - 0.3 * wall_gain
            )
        if eff == E_REARGUARD:
            left = po - amount_of(c, r)
            if left < 0:
                left = 0
            return base - (1.0e4 if left >= my_walls else bot[P.BP_WALL_LOSS] / 100.0 * left)
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
    i0 = a[L.AX_C0]
    if s[L.G_TOP_SHAPE] == L.SHAPE_INF:
        if c[L.C_FLAGS + i0] & L.F_ASSASSIN:
            return 1.0e5
        # 天下布武: three random hand cards die
        return wall_gain * (pm + 1) - card * 3.0 * 6.0 + 0.5 * danger
    return _answer_score(
        s,
        c,
        bot,
        a[L.AX_N],
        val,
        top,
        shape,
        bonus,
        a[L.AX_KURUMAGAKARI] >= 0,
        a[L.AX_FIRE] != 0,
        my_walls,
        opp_walls,
        opp_hand,
    )


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


# ---------------------------------------------------------------- choosing without the listing
# ``heuristic_pick`` walks the step plan (``nb_actions.plan``, the one description of what is
# legal, in ``legal_actions``' order: the returns, the sets of each strength, ∞ singles, runs,
# 見送り, castles, …) and scores each step as it comes, the first of the best kept in acts[0] — the same choice as scoring the listed rows
# with ``heuristic_choose``, as tests/test_bots.py checks at every decision of many games. The
# sets of one card type (nearly all of them) are scored from the card and its count without being
# written out; groups with several types of one strength, runs, tactics and answers to an ∞ are
# listed into acts (from their place in the listing, so the action cap is the same) and scored
# row by row. A position's place in the listing is tracked so that it stops at MAXA exactly as
# the listing does.


@hot
def _put(acts, kind, k, i, kurumagakari, fire, x):
    """Row 0 := a step of ``k`` copies of card ``i`` (k = 0: no card)."""
    acts[0, L.AX_KIND] = kind
    acts[0, L.AX_N] = k
    for j in range(5):
        acts[0, L.AX_C0 + j] = i if j < k else -1
    acts[0, L.AX_KURUMAGAKARI] = kurumagakari
    acts[0, L.AX_FIRE] = fire
    acts[0, L.AX_X] = x


@hot
def _offer(acts, pos, best, sc, kind, k, i, kurumagakari, fire, x):
    """The step at listing position ``pos`` scores ``sc``: keep it in row 0 if it is the first
    step or beats the best so far. Returns (next position, best score)."""
    if pos >= L.MAXA:
        return pos, best
    if pos == 0 or sc > best:
        _put(acts, kind, k, i, kurumagakari, fire, x)
    if sc > best:
        best = sc
    return pos + 1, best


@hot
def _score_listed(s, c, acts, pos, end, best, bot):
    """Score the rows pos…end-1 that a listing helper just wrote; the best goes to row 0."""
    for r in range(pos, end):
        sc = score_action(s, c, acts[r], bot)
        if sc > best:
            best = sc
            if r > 0:
                for x in range(L.AW):
                    acts[0, x] = acts[r, x]
    return best


@hot
def _one_type_leads(s, c, acts, pos, best, bot, i, k_hi, kurumagakari, opp_hand, opp_walls):
    """Leads of 1…k_hi copies of card i, each then with the 車懸り (``nb_emit.equal_sets``' order)."""
    cv = card_value(c, i)
    top = c[L.C_STR + i]
    d = _damage_bonus(c, i)
    val = 0.0
    for k in range(1, k_hi + 1):
        val += cv
        shape = L.SHAPE_INF if k == 1 and top == L.INF else L.SHAPE_SAME
        sc = _lead_score(bot, k, val, top, shape, k * d, False, opp_hand, opp_walls)
        pos, best = _offer(acts, pos, best, sc, L.A_LEAD, k, i, -1, 0, -1)
        if kurumagakari >= 0:
            sc = _lead_score(bot, k, val, top, shape, k * d, True, opp_hand, opp_walls)
            pos, best = _offer(acts, pos, best, sc, L.A_LEAD, k, i, kurumagakari, 0, -1)
    return pos, best


@hot
def _one_type_answers(
    s, c, acts, pos, best, bot, i, k, kurumagakari, my_walls, opp_walls, opp_hand
):
    """The answer of k copies of card i with ``nb_emit.emit_set``'s twins: plain, fire, 車懸り, both."""
    val = 0.0
    for _ in range(k):
        val += card_value(c, i)
    top = c[L.C_STR + i]
    shape = L.SHAPE_INF if k == 1 and top == L.INF else L.SHAPE_SAME
    bonus = k * _damage_bonus(c, i)
    gun = c[L.C_FLAGS + i] & L.F_GUN != 0
    for twin in range(2):
        if twin == 1 and kurumagakari < 0:
            break
        use = kurumagakari if twin == 1 else -1
        sc = _answer_score(
            s, c, bot, k, val, top, shape, bonus, twin == 1, False, my_walls, opp_walls, opp_hand
        )
        pos, best = _offer(acts, pos, best, sc, L.A_ANSWER, k, i, use, 0, -1)
        if gun:
            sc = _answer_score(
                s, c, bot, k, val, top, shape, bonus, twin == 1, True, my_walls, opp_walls, opp_hand
            )
            pos, best = _offer(acts, pos, best, sc, L.A_ANSWER, k, i, use, 1, -1)
    return pos, best


@kernel
def _pick(s, c, acts, wk, bot):
    """Walk the step plan (nb_actions.plan: the same groups, in the same order, as
    ``legal_actions``) scoring each step: sets of one card type (nearly all) from the card and
    its count, the other groups listed in place by the plan's emitter and scored row by row.
    Returns the steps seen (as ``legal_actions`` counts them)."""
    groups = plan(s, c, acts, wk, False)
    p = s[L.G_TO_MOVE]
    my_walls = wall_total(s, p)
    opp_walls = wall_total(s, 1 - p)
    opp_hand = hand_count(s, 1 - p)
    units = hand_mask(s, p) & c[L.C_M_UNIT]
    kurumagakari = first_in(s, c, p, c[L.C_M_KURUMAGAKARI])
    pres = -1  # gather_hand not run yet
    pos = 0
    best = NEG * 10.0
    for g in range(groups):
        code, kind, arg, _ = plan_row(wk, g)
        if code == GR_ONE:
            if kind == L.A_PASS:
                sc = -_danger(s, c, bot, p, my_walls)[1]
            elif kind == L.A_MIOKURI:
                sc = _miokuri_score(c, bot, my_walls)
            elif kind == L.A_FORTIFY:
                sc = _fortify_score(bot)
            elif kind == L.A_KEEP:
                sc = 0.0
            else:
                sc = 1.0 if bot[P.BP_MULLIGAN] != 0 else -1.0
            pos, best = _offer(acts, pos, best, sc, kind, 0, -1, -1, 0, -1)
            continue
        if code == GR_RETURN or code == GR_BUILD or code == GR_LOGISTICS:
            m = arg
            while m != 0:
                low = m & -m
                m ^= low
                x = low_index(low)
                if code == GR_RETURN:
                    pos, best = _offer(
                        acts, pos, best, _return_score(c, x, bot), kind, 1, x, -1, 0, -1
                    )
                elif code == GR_BUILD:
                    pos, best = _offer(acts, pos, best, _build_score(bot), kind, 0, -1, -1, 0, x)
                else:
                    pos, best = _offer(
                        acts, pos, best, _logistics_score(c, bot, x), kind, 0, -1, -1, 0, x
                    )
            continue
        if code == GR_EQUAL or code == GR_INF:
            v = arg & 0xFF if code == GR_EQUAL else L.INF
            k_lo = (arg >> 8) & 0xFF if code == GR_EQUAL else 1
            k_hi = arg >> 16 if code == GR_EQUAL else 1
            mv = units & c[L.C_M_STR + v]
            if kind == L.A_LEAD and (mv & (mv - 1) == 0 or code == GR_INF):
                while mv != 0:  # ∞ singles: each type alone, like one type
                    low = mv & -mv
                    mv ^= low
                    i = low_index(low)
                    have = copies(s, p, L.PB_HAND, i)
                    pos, best = _one_type_leads(
                        s,
                        c,
                        acts,
                        pos,
                        best,
                        bot,
                        i,
                        k_hi if k_hi < have else have,
                        kurumagakari,
                        opp_hand,
                        opp_walls,
                    )
                continue
            if kind == L.A_ANSWER and (mv & (mv - 1) == 0 or k_lo == 1):
                while mv != 0:
                    low = mv & -mv
                    mv ^= low
                    i = low_index(low)
                    if copies(s, p, L.PB_HAND, i) >= k_lo:
                        pos, best = _one_type_answers(
                            s,
                            c,
                            acts,
                            pos,
                            best,
                            bot,
                            i,
                            k_lo,
                            kurumagakari,
                            my_walls,
                            opp_walls,
                            opp_hand,
                        )
                continue
        # the rest — several types of one strength, runs, answers to ∞, tactics — is listed
        if pres < 0:
            pres = gather_hand(s, c, p, wk)
        end = emit_group(s, c, acts, pos, wk, g, pres, kurumagakari)
        best = _score_listed(s, c, acts, pos, end, best, bot)
        pos = end
    return pos


@hot
def _return_first(s, c, bot):
    """The 帰陣 a leader turn opens with when one is worth at least ``return_min`` (-1: none).
    Such a return scores 10⁶ + its value, above any other step while every weight is within ±100
    (×100: ±10⁴) — a lead's wall gain is 10⁴ once it would take the last wall and is capped by
    the walls left below that — so the most valuable one, the first in local-id order among
    equals, is the choice, and the turn's other steps need not be looked at."""
    m = up_mask(s, s[L.G_TO_MOVE])
    if m == 0:
        return -1
    for k in range(P.BP_WALL_GAIN, P.BP_BIG + 1):
        if bot[k] > 10000 or bot[k] < -10000:
            return -1
    best = -1
    best_v = -1.0
    while m != 0:
        low = m & -m
        m ^= low
        i = low_index(low)
        v = card_value(c, i)
        if v >= bot[P.BP_RETURN_MIN] and v > best_v:
            best_v = v
            best = i
    return best


@kernel
def heuristic_pick(s, c, acts, wk, bot):
    """Write the heuristic's step into ``acts[0]`` — the row ``heuristic_choose`` picks from
    ``legal_actions`` — without listing every step (see above). Returns how many steps there
    are as ``legal_actions`` counts them (and flags the state's error the same way at MAXA),
    or 0 when a 帰陣 was taken without looking at the other steps."""
    phase = s[L.G_PHASE]
    if phase == L.PH_LEADER:
        i = _return_first(s, c, bot)
        if i >= 0:
            _put(acts, L.A_RETURN, 1, i, -1, 0, -1)
            return 0
    if phase == L.PH_LEADER or phase == L.PH_LEADER_ACT or phase == L.PH_RESPONSE:
        n = _pick(s, c, acts, wk, bot)
    else:
        n = legal_actions(s, c, acts, wk)
        k = heuristic_choose(s, c, acts, n, bot)
        for x in range(L.AW):
            acts[0, x] = acts[k, x]
        return n
    if n >= L.MAXA:
        s[L.G_ERROR] = 2
    return n
