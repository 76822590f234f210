"""The strong bot: a linear policy over action features, distilled from the expert.

Every legal action is described by ``N_FEAT`` numbers from the mover's side — what the balanced
and the tuned heuristics think of it (is it their choice, their clipped score, is it decisive), its
kind, and for led and answering sets their size, value, top strength, shape, extra damage,
車懸り and gun fire, the chance the heuristic gives of it being beaten, the share of the hand's
value it spends, its strong units, whether it empties the hand, and a few interactions with the
walls at stake — and scored by a weighted sum; the best is played (the first among equals),
unless the runner-up is close: then the lookahead (``nb_lookahead``) tries the few best in
imagined games and plays the best of those. The weights are a conditional-logit fit of the
expert's choices on positions from the bot's own play (``lab.games.daitenka.bots.distill``);
they ship as ``lab/games/daitenka/bots/data/strong_weights.json`` and travel in the bot spec
(``BP_W``…, ×10⁵, and the tuned persona's fields from ``BP_ALT``) so the compiled code holds no
weight of its own.

The policy reads what the heuristic reads (rules.md R1): its own hand, counts of the opponent's
hand and walls, the field and camps — never the opponent's hand, a deck or a wall card; the
lookahead imagines those from what the seat may know, as the search does.
"""

import numpy as np

from lab.games.daitenka.bots import nb_params as P
from lab.games.daitenka.bots.nb_heuristic import (
    _danger,
    _set_stats,
    answer_prob,
    card_value,
    score_action,
)
from lab.games.daitenka.bots.nb_buffer import N_WF, SB_H, SB_HT, SB_WF, SB_Z
from lab.games.daitenka.bots.nb_lookahead import Z_SCALE, lookahead
from lab.jit import hot, kernel
from lab.games.daitenka.engine import layout as L
from lab.games.daitenka.engine.nb_core import (
    copies,
    deck_count,
    hand_count,
    hand_mask,
    low_index,
    wall_total,
)

SCALE = 100000.0  # weights are stored in the bot spec as whole numbers ×10⁵
BASE_NAMES = (
    "heuristic_best",
    "heuristic_score",
    "heuristic_decisive",
    "heuristic_vetoed",
    "return",
    "lead",
    "answer",
    "pass",
    "miokuri",
    "build",
    "fortify",
    "siege",
    "tactic",
    "logistics",
    "mulligan",
    "lead_n",
    "lead_value",
    "lead_top",
    "lead_run",
    "lead_inf",
    "lead_bonus",
    "lead_kuruma",
    "lead_fire",
    "lead_beaten",
    "lead_hand_share",
    "lead_strong",
    "lead_empties",
    "answer_n",
    "answer_value",
    "answer_top",
    "answer_run",
    "answer_inf",
    "answer_bonus",
    "answer_kuruma",
    "answer_fire",
    "answer_beaten",
    "answer_hand_share",
    "answer_strong",
    "answer_empties",
    "lead_value_late",
    "answer_value_x_danger",
    "pass_walls",
    "pass_fatal",
    "answer_wins_game",
    "lead_wins_game",
    "miokuri_x_walls",
    "tactic_x_danger",
    "castle_x_walls",
    "tuned_best",
    "tuned_score",
    "tuned_decisive",
    "rem_pairs",
    "rem_triples",
    "rem_lone_low",
    "rem_strong",
    "rem_inf",
    "rem_top",
    "rem_distinct",
    "rem_run3",
    "rem_broken",
    "rem_hand_le2",
    "rem_top_late",
    "rem_broken_lead",
)
N_BASE = len(BASE_NAMES)
# Every feature twice: its weight overall, and what it adds once either side is down to its last
# two walls (the end game), so the fit may weigh a set differently when the next battle decides.
FEATURE_NAMES = BASE_NAMES + tuple(name + "@end" for name in BASE_NAMES)
N_FEAT = len(FEATURE_NAMES)
assert N_FEAT == P.N_W, "lab.bots.nb_params.N_W must equal the strong bot's feature count"
assert N_FEAT <= N_WF, "nb_buffer.N_WF must hold the strong bot's weights"
END_WALLS = 2


# The hand's copies per strength (0 = tactic or castle, 1…10, ∞ = 11), four bits each in one
# integer, so that "the hand after this set" costs no allocation in the decision loop.
_NIB = 4
_NIB_MAX = 15


@hot
def _count_at(packed, st):
    return (packed >> (_NIB * st)) & _NIB_MAX


@hot
def _without_set(c, a, packed):
    """The packed counts once the set of action row ``a`` has left the hand, and how many
    strengths it split (took some copies of, leaving at least one)."""
    after = packed
    for j in range(a[L.AX_N]):
        st = c[L.C_STR + a[L.AX_C0 + j]]
        if _count_at(after, st) > 0:
            after -= 1 << (_NIB * st)
    broken = 0
    for st in range(1, L.INF + 1):
        n0 = _count_at(packed, st)
        n1 = _count_at(after, st)
        if 0 < n1 < n0:
            broken += 1
    return after, broken


@hot
def _hand_shape(packed):
    """(pairs, triples, lone low cards, strong units, ∞ units, top strength, distinct
    strengths, a run of three) of a packed hand."""
    pairs = 0
    triples = 0
    lone_low = 0
    strong = 0
    distinct = 0
    top = 0
    run = 0
    run3 = 0
    for st in range(1, L.INF):
        n = _count_at(packed, st)
        if n > 0:
            distinct += 1
            top = st
            run += 1
            if run >= 3:
                run3 = 1
        else:
            run = 0
        if n >= 2:
            pairs += 1
        if n >= 3:
            triples += 1
        if n == 1 and st <= 5:
            lone_low += 1
        if st >= 8:
            strong += n
    inf = _count_at(packed, L.INF)
    if inf > 0:
        top = L.INF
        distinct += 1
    return pairs, triples, lone_low, strong, inf, top, distinct, run3


@hot
def context(s, c, bot):
    """What every action of one decision shares: (my walls, opponent's walls, opponent's hand
    size, my hand size, my hand's value, my deck size, walls at stake if I pass, my plays, my
    hand's copies per strength packed)."""
    p = s[L.G_TO_MOVE]
    mw = wall_total(s, p)
    ow = wall_total(s, 1 - p)
    hv = 0.0
    packed = 0
    m = hand_mask(s, p)
    while m != 0:
        low = m & -m
        m ^= low
        i = low_index(low)
        k = copies(s, p, L.PB_HAND, i)
        hv += card_value(c, i) * k
        st = c[L.C_STR + i]
        if 0 < st <= L.INF:
            n = _count_at(packed, st) + k
            if n > _NIB_MAX:
                n = _NIB_MAX
            packed = (packed & ~(_NIB_MAX << (_NIB * st))) | (n << (_NIB * st))
    po = 0
    if s[L.G_PHASE] == L.PH_RESPONSE:
        po = _danger(s, c, bot, p, mw)[0]
    return (
        float(mw),
        float(ow),
        float(hand_count(s, 1 - p)),
        float(hand_count(s, p)),
        hv,
        float(deck_count(s, p)),
        float(po),
        float(s[L.G_PLAYS + p]),
        packed,
    )


@hot
def _end_game(ctx):
    """Is either side down to its last END_WALLS walls?"""
    return ctx[0] <= END_WALLS or ctx[1] <= END_WALLS


@hot
def _clip(h):
    return 30.0 if h > 30.0 else (-30.0 if h < -30.0 else h)


@hot
def _strong_units(c, a):
    n = 0
    for j in range(a[L.AX_N]):
        st = c[L.C_STR + a[L.AX_C0 + j]]
        if 8 <= st < L.INF:
            n += 1
    return n


@hot
def action_features(s, c, a, h, best, ht, best_t, ctx):
    """The features of action row ``a`` (heuristic score ``h``; ``best``: the heuristic's choice;
    ``ht``, ``best_t``: the same for the tuned persona) in the order of FEATURE_NAMES."""
    mw, ow, oh, hn, hv, deck, po, pm, packed = ctx
    kind = a[L.AX_KIND]
    is_lead = kind == L.A_LEAD
    is_answer = kind == L.A_ANSWER
    k = 0.0
    val = 0.0
    top = 0.0
    run = 0.0
    inf = 0.0
    bonus = 0.0
    kuruma = 0.0
    fire = 0.0
    beaten = 0.0
    share = 0.0
    strong = 0.0
    empties = 0.0
    if is_lead or is_answer:
        v, t, shape, bo = _set_stats(c, a)
        k = float(a[L.AX_N])
        val = v / 10.0
        top = t / 10.0
        run = 1.0 if shape == L.SHAPE_RUN else 0.0
        inf = 1.0 if shape == L.SHAPE_INF else 0.0
        bonus = float(bo)
        kuruma = 1.0 if a[L.AX_KURUMAGAKARI] >= 0 else 0.0
        fire = 1.0 if a[L.AX_FIRE] != 0 else 0.0
        beaten = answer_prob(a[L.AX_N], t, shape, int(oh))
        share = v / hv if hv > 0.0 else 0.0
        strong = float(_strong_units(c, a))
        empties = 1.0 if k >= hn else 0.0
    after = packed
    broken = 0
    if is_lead or is_answer:
        after, broken = _without_set(c, a, packed)
    pairs, triples, lone_low, rstrong, rinf, rtop, distinct, run3 = _hand_shape(after)
    ld = 1.0 if is_lead else 0.0
    an = 1.0 if is_answer else 0.0
    ps = 1.0 if kind == L.A_PASS else 0.0
    hc = _clip(h)
    # four short tuples: CPython builds a long tuple display through a list, which numba refuses
    kinds = (
        1.0 if best else 0.0,
        hc / 10.0,
        1.0 if h >= 1000.0 else 0.0,
        1.0 if h <= -1000.0 else 0.0,
        1.0 if kind == L.A_RETURN else 0.0,
        ld,
        an,
        ps,
        1.0 if kind == L.A_MIOKURI else 0.0,
        1.0 if kind == L.A_BUILD else 0.0,
        1.0 if kind == L.A_FORTIFY else 0.0,
        1.0 if kind == L.A_SIEGE else 0.0,
        1.0 if kind == L.A_TACTIC else 0.0,
        1.0 if kind == L.A_LOGISTICS else 0.0,
        1.0 if kind == L.A_MULLIGAN else 0.0,
    )
    leads = (
        ld * k,
        ld * val,
        ld * top,
        ld * run,
        ld * inf,
        ld * bonus,
        ld * kuruma,
        ld * fire,
        ld * beaten,
        ld * share,
        ld * strong,
        ld * empties,
    )
    answers = (
        an * k,
        an * val,
        an * top,
        an * run,
        an * inf,
        an * bonus,
        an * kuruma,
        an * fire,
        an * beaten,
        an * share,
        an * strong,
        an * empties,
    )
    stakes = (
        ld * val * (1.0 if deck <= 5.0 else 0.0),
        an * val * (po / mw if mw > 0.0 else 0.0),
        ps * po,
        ps * (1.0 if po >= mw else 0.0),
        an * (1.0 if pm + 1.0 + bonus >= ow else 0.0),
        ld * (1.0 if 1.0 + bonus >= ow else 0.0),
        (1.0 if kind == L.A_MIOKURI else 0.0) * mw,
        (1.0 if kind == L.A_TACTIC or kind == L.A_SIEGE else 0.0) * po,
        (1.0 if kind == L.A_BUILD or kind == L.A_FORTIFY else 0.0) * mw,
        1.0 if best_t else 0.0,
        _clip(ht) / 10.0,
        1.0 if ht >= 1000.0 else 0.0,
    )
    late = 1.0 if deck <= 5.0 else 0.0
    rest = (
        float(pairs),
        float(triples),
        float(lone_low),
        float(rstrong),
        float(rinf),
        rtop / 10.0,
        float(distinct),
        float(run3),
        float(broken),
        1.0 if hn - k <= 2.0 else 0.0,
        rtop / 10.0 * late,
        ld * broken,
    )
    return kinds + leads + answers + stakes + rest


@hot
def heuristic_scores(s, c, acts, n, bot, alt, sb):
    """Both heuristics' scores of the ``n`` rows (balanced, then ``alt``: the tuned persona; in
    the scratch buffer, viewed as floats) and each one's choice (its first best): scored once,
    read by every feature."""
    h = sb[SB_H : SB_H + n].view(np.float64)
    ht = sb[SB_HT : SB_HT + n].view(np.float64)
    hb = 0
    tb = 0
    for k in range(n):
        h[k] = score_action(s, c, acts[k], bot)
        ht[k] = score_action(s, c, acts[k], alt)
        if h[k] > h[hb]:
            hb = k
        if ht[k] > ht[tb]:
            tb = k
    return h, ht, hb, tb


@kernel
def strong_choose(s, c, lg, acts, n, wk, bot, sb, sacts):
    """Index of the row with the highest weighted feature sum (the first among equals) — or,
    with a lookahead (``bot[BP_CAND]`` ≥ 2 steps, ``bot[BP_SIMS]`` ≥ 1 world) and a runner-up
    within its margin, the best of the top rows in imagined games (``nb_lookahead``)."""
    if n <= 1:
        return 0
    alt = bot[P.BP_ALT : P.BP_ALT + P.BP_W]
    h, ht, hb, tb = heuristic_scores(s, c, acts, n, bot, alt, sb)
    ctx = context(s, c, bot)
    pick = 0
    top = -1.0e300
    end = _end_game(ctx)
    look = bot[P.BP_CAND] > 1 and bot[P.BP_SIMS] > 0
    # divided once per decision, not once per step (the same quotients)
    w = sb[SB_WF : SB_WF + N_FEAT].view(np.float64)
    for j in range(N_FEAT):
        w[j] = bot[P.BP_W + j] / SCALE
    for k in range(n):
        f = action_features(s, c, acts[k], h[k], k == hb, ht[k], k == tb, ctx)
        z = 0.0
        for j in range(N_BASE):
            z += w[j] * f[j]
        if end:
            for j in range(N_BASE):
                z += w[N_BASE + j] * f[j]
        if look:
            sb[SB_Z + k] = int(z * Z_SCALE)
        if z > top:
            top = z
            pick = k
    if look:
        floor = int((top - bot[P.BP_MARGIN] / 100.0) * Z_SCALE)
        k = lookahead(s, c, lg, acts, n, wk, bot, sb, sacts, floor)
        if k >= 0:
            return k
    return pick


@kernel
def fill_features(s, c, acts, n, bot, sb, X, row):
    """Write the features of the ``n`` rows into X[row:row + n] (for ``lab.games.daitenka.bots.distill``)."""
    alt = bot[P.BP_ALT : P.BP_ALT + P.BP_W]
    h, ht, hb, tb = heuristic_scores(s, c, acts, n, bot, alt, sb)
    ctx = context(s, c, bot)
    end = 1.0 if _end_game(ctx) else 0.0
    for k in range(n):
        f = action_features(s, c, acts[k], h[k], k == hb, ht[k], k == tb, ctx)
        for j in range(N_BASE):
            X[row + k, j] = f[j]
            X[row + k, N_BASE + j] = end * f[j]
