"""A position's value without playing it out: the expert's playout cut-off.

``features`` describes a state from one player's side as differences between the two players
(walls and how few are left, hand size and value, ∞ units, tactics, strong units and pairs in
hand, deck, both halves of the camp, a home castle, the units left, and who leads next), so the
model is antisymmetric: ``win_prob(s, c, p) + win_prob(s, c, 1 - p) = 1``. ``WEIGHTS`` are a
logistic regression of the outcome of balanced-heuristic self-play games on these features at
the start of leader turns (fitted by ``lab.games.daitenka.bots.evalfit``; the fit is recorded in
docs/bots.md). The expert calls it on a *determinised* state — a sample of what its seat cannot
see — so reading both hands here is not peeking. Only constants and ``@njit`` kernels.
"""

import math

from lab.games.daitenka.bots.nb_heuristic import card_value
from lab.jit import hot
from lab.games.daitenka.engine import layout as L
from lab.games.daitenka.engine.nb_core import (
    castle_of,
    copies,
    deck_count,
    down_mask,
    hand_count,
    hand_mask,
    low_index,
    up_mask,
    wall_total,
)

N_FEAT = 18
FEATURE_NAMES = (
    "walls",
    "walls<=1",
    "walls<=2",
    "walls<=3",
    "hand",
    "hand_value",
    "hand_inf",
    "hand_tactics",
    "hand_strong",
    "hand_pairs",
    "deck",
    "camp_up_value",
    "camp_down_value",
    "castle",
    "units_left",
    "hand<=2",
    "leads",
    "walls_x_leads",
)
# fitted by lab.games.daitenka.bots.evalfit (see docs/bots.md)
WEIGHTS = (
    0.39195,
    -0.18833,
    -0.08317,
    -0.00979,
    0.28062,
    0.01176,
    0.09704,
    -0.02741,
    0.1398,
    -0.00719,
    0.02761,
    0.01789,
    0.02089,
    0.31736,
    -0.0757,
    -0.0512,
    1.42813,
    -0.07995,
)


@hot
def _side(s, c, p):
    """Player p's own terms, in the order of FEATURE_NAMES (the first 16)."""
    w = wall_total(s, p)
    hn = hand_count(s, p)
    value = 0.0
    inf = 0
    tactics = 0
    strong = 0
    pairs = 0
    units = 0
    m = hand_mask(s, p)
    while m != 0:
        low = m & -m
        m ^= low
        i = low_index(low)
        k = copies(s, p, L.PB_HAND, i)
        value += card_value(c, i) * k
        st = c[L.C_STR + i]
        if st == L.INF:
            inf += k
        elif st >= 8:
            strong += k
        if st <= 0:
            tactics += k
        else:
            units += k
        if k >= 2 and st > 0:
            pairs += 1
    up = 0.0
    down = 0.0
    m = up_mask(s, p) | down_mask(s, p)
    while m != 0:
        low = m & -m
        m ^= low
        i = low_index(low)
        n_up = copies(s, p, L.PB_UP, i)
        n_down = copies(s, p, L.PB_DOWN, i)
        up += card_value(c, i) * n_up
        down += card_value(c, i) * n_down
        units += n_up + n_down
    deck = deck_count(s, p)
    return (
        float(w),
        1.0 if w <= 1 else 0.0,
        1.0 if w <= 2 else 0.0,
        1.0 if w <= 3 else 0.0,
        float(hn),
        value,
        float(inf),
        float(tactics),
        float(strong),
        float(pairs),
        float(deck),
        up,
        down,
        1.0 if castle_of(s, p) >= 0 else 0.0,
        float(units + deck),
        1.0 if hn <= 2 else 0.0,
    )


@hot
def features(s, c, p, f):
    """Fill ``f[:N_FEAT]`` with the state's features from player p's side."""
    a = _side(s, c, p)
    o = _side(s, c, 1 - p)
    for k in range(N_FEAT - 2):
        f[k] = a[k] - o[k]
    lead = 1.0 if s[L.G_LEADER] == p else -1.0
    f[N_FEAT - 2] = lead
    f[N_FEAT - 1] = lead * (a[0] + o[0])


@hot
def win_prob(s, c, p, w):
    """The modelled chance that player p wins (a draw counts half) under weights ``w``."""
    a = _side(s, c, p)
    o = _side(s, c, 1 - p)
    z = 0.0
    for k in range(N_FEAT - 2):
        z += w[k] * (a[k] - o[k])
    lead = 1.0 if s[L.G_LEADER] == p else -1.0
    z += w[N_FEAT - 2] * lead + w[N_FEAT - 1] * (lead * (a[0] + o[0]))
    if z > 30.0:
        z = 30.0
    elif z < -30.0:
        z = -30.0
    return 1.0 / (1.0 + math.exp(-z))
