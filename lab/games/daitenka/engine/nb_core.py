"""Kernels for the small moves every rule is made of: the log, named reads of the state and of
ability rows, zone moves, draws, repairs, flips, random hand picks, the game's end (the generator
is ``nb_rng``'s, shared by every game). Nothing here kills a card: deaths, with what they set
off, are ``nb_effects``'.

Only ``@njit`` functions over the state ``s``, the context ``c`` and the log ``lg``; no I/O and no
Python objects, so the same code runs compiled and under NUMBA_DISABLE_JIT=1.
"""

import numba
from numba.cpython.unsafe.numbers import trailing_zeros

from lab.games.daitenka.engine import layout as L
from lab.jit import hot, kernel
from lab.jit.nb_rng import next32, rand_below  # noqa: F401  (kernels take them from here)
from lab.games.daitenka.rules import R_LOGISTICS, R_WALLS


# ------------------------------------------------------------------ log
@hot
def log_ev(s, lg, code, p, card, amount, extra):
    if s[L.G_LOG_ON] != 0:
        k = s[L.G_LOG_N]
        if k < lg.shape[0]:
            lg[k, 0] = code
            lg[k, 1] = p
            lg[k, 2] = card
            lg[k, 3] = amount
            lg[k, 4] = extra
        s[L.G_LOG_N] = k + 1


# ------------------------------------------------------------------ basics
@hot
def pb(p):
    return L.H_SIZE + p * L.P_SIZE


@hot
def stat(s, which, i, n):
    s[L.ST_BASE + which * L.NL + i] += n


@hot
def numval(st):
    """A strength as a number: ∞ counts as 10 (legacy logistics limit)."""
    return 10 if st == L.INF else st


@hot
def logi_limit(s, c, p):
    """The highest strength p may put on the field: the logistics count under the legacy rule
    (R5; ruling S1: every set, ∞ as 10), else no limit."""
    if c[L.C_RULES + R_LOGISTICS] != 0:
        return s[pb(p) + L.PB_LOGI_N]
    return 99


# ------------------------------------------------------------------ named reads of the state
@hot
def hand_count(s, p):
    return s[pb(p) + L.PB_HAND_N]


@hot
def hand_mask(s, p):
    return s[pb(p) + L.PB_HAND_MASK]


@hot
def up_mask(s, p):
    return s[pb(p) + L.PB_UP_MASK]


@hot
def down_mask(s, p):
    return s[pb(p) + L.PB_DOWN_MASK]


@hot
def field_mask(s, p):
    return s[pb(p) + L.PB_FIELD_MASK]


@hot
def deck_count(s, p):
    return s[pb(p) + L.PB_DECK_N]


@hot
def wall_count(s, p):
    """Cards in p's wall stack, the home castle not counted."""
    return s[pb(p) + L.PB_WALL_N]


@hot
def castle_of(s, p):
    """Local id of p's standing home castle, or -1."""
    return s[pb(p) + L.PB_CASTLE]


@hot
def logi_count(s, p):
    return s[pb(p) + L.PB_LOGI_N]


@hot
def copies(s, p, zone, i):
    """Copies of local id i in one of p's count zones (``L.PB_HAND``, ``L.PB_UP`` …)."""
    return s[pb(p) + zone + i]


@hot
def deck_card(s, p, k):
    """Local id of the k-th card of p's deck stack (k = 0 the bottom, the top last)."""
    return s[pb(p) + L.PB_DECK + k]


@hot
def set_deck_card(s, p, k, i):
    s[pb(p) + L.PB_DECK + k] = i


@hot
def wall_card(s, p, k):
    """Local id of the k-th card of p's wall stack (k = 0 next to the 天守, the top last)."""
    return s[pb(p) + L.PB_WALLS + k]


@hot
def set_wall_card(s, p, k, i):
    s[pb(p) + L.PB_WALLS + k] = i


@hot
def wall_total(s, p):
    """p's walls as the rules count them: the home castle is one (R11)."""
    return wall_count(s, p) + (1 if castle_of(s, p) >= 0 else 0)


# ------------------------------------------------------------------ named ability rows
# Card i's row q lives at ``row_at(i, q)`` in the context; a row is read by these accessors and
# a row finder answers -1 when the card has no such row.
@hot
def row_at(i, q):
    return L.C_ROWS + (i * L.ROWS_PER_CARD + q) * L.ROW_W


@hot
def row_number(i, r):
    """Which of card i's rows (0–3) the row at ``r`` is."""
    return (r - L.C_ROWS) // L.ROW_W - i * L.ROWS_PER_CARD


@hot
def trigger_of(c, r):
    return c[r]


@hot
def effect_of(c, r):
    return c[r + 1]


@hot
def amount_of(c, r):
    return c[r + 2]


@hot
def condition_of(c, r):
    return c[r + 3]


@hot
def find_row(c, i, trigger, effect):
    """Card i's first row with this trigger and effect (effect 0: any), or -1."""
    for q in range(L.ROWS_PER_CARD):
        r = row_at(i, q)
        if trigger_of(c, r) == trigger and (effect == 0 or effect_of(c, r) == effect):
            return r
    return -1


@hot
def castle_row(s, c, p, trigger, effect):
    """p's standing home castle's row with this trigger and effect, or -1."""
    cs = castle_of(s, p)
    if cs < 0:
        return -1
    return find_row(c, cs, trigger, effect)


if numba.config.DISABLE_JIT:

    def low_index(low):
        """Index of the single set bit of ``low`` (a power of two below 2**63)."""
        return int(low).bit_length() - 1
else:

    @hot
    def low_index(low):
        """Index of the single set bit of ``low``: one ``tzcnt`` instruction where a table or a
        loop would cost a dozen, and it runs for every card of every mask walk."""
        return trailing_zeros(low)


# ------------------------------------------------------------------ zone moves
@hot
def field_add(s, p, i):
    b = pb(p)
    s[b + L.PB_FIELD + i] += 1
    s[b + L.PB_FIELD_MASK] |= 1 << i


@hot
def field_remove(s, p, i):
    b = pb(p)
    s[b + L.PB_FIELD + i] -= 1
    if s[b + L.PB_FIELD + i] == 0:
        s[b + L.PB_FIELD_MASK] &= ~(1 << i)


@hot
def hand_add(s, p, i):
    b = pb(p)
    s[b + L.PB_HAND + i] += 1
    s[b + L.PB_HAND_N] += 1
    s[b + L.PB_HAND_MASK] |= 1 << i


@hot
def hand_remove(s, p, i):
    b = pb(p)
    left = s[b + L.PB_HAND + i] - 1
    s[b + L.PB_HAND + i] = left
    s[b + L.PB_HAND_N] -= 1
    if left == 0:
        s[b + L.PB_HAND_MASK] &= ~(1 << i)
    o = pb(1 - p) + L.PB_KNOWN + i
    if s[o] > left:  # ruling V2: known copies never exceed the copies still in that hand
        s[o] = left


@hot
def camp_add(s, p, i, up):
    b = pb(p)
    if up:
        s[b + L.PB_UP + i] += 1
        s[b + L.PB_UP_MASK] |= 1 << i
    else:
        s[b + L.PB_DOWN + i] += 1
        s[b + L.PB_DOWN_MASK] |= 1 << i


@hot
def camp_remove(s, p, i, up):
    b = pb(p)
    if up:
        s[b + L.PB_UP + i] -= 1
        if s[b + L.PB_UP + i] == 0:
            s[b + L.PB_UP_MASK] &= ~(1 << i)
    else:
        s[b + L.PB_DOWN + i] -= 1
        if s[b + L.PB_DOWN + i] == 0:
            s[b + L.PB_DOWN_MASK] &= ~(1 << i)


@kernel
def draw(s, c, lg, p):
    """Draw the deck's top card into hand; -1 if the deck is empty."""
    b = pb(p)
    n = s[b + L.PB_DECK_N]
    if n == 0:
        return -1
    n -= 1
    i = s[b + L.PB_DECK + n]
    s[b + L.PB_DECK_N] = n
    hand_add(s, p, i)
    stat(s, L.ST_DRAWN, i, 1)
    if s[L.ST_BASE + L.ST_FIRST_DRAW * L.NL + i] == 0:
        s[L.ST_BASE + L.ST_FIRST_DRAW * L.NL + i] = max(1, s[L.G_TURNS])
    log_ev(s, lg, L.EV_DRAW, p, i, 1, 0)
    return i


@hot
def deal_opening(s, p, count):
    """Deal up to ``count`` deck-top cards into p's opening hand (set-up and mulligan redraw;
    not draws: they count as opening cards, not as drawn ones)."""
    b = pb(p)
    for _ in range(count):
        k = s[b + L.PB_DECK_N]
        if k == 0:
            break
        k -= 1
        s[b + L.PB_DECK_N] = k
        i = s[b + L.PB_DECK + k]
        hand_add(s, p, i)
        stat(s, L.ST_OPENING, i, 1)


@hot
def deck_push(s, p, i):
    """Put card i on top of p's deck (before a shuffle)."""
    b = pb(p)
    k = s[b + L.PB_DECK_N]
    s[b + L.PB_DECK + k] = i
    s[b + L.PB_DECK_N] = k + 1


@kernel
def draw_n(s, c, lg, p, n):
    got = 0
    for _ in range(n):
        if draw(s, c, lg, p) >= 0:
            got += 1
    return got


@kernel
def pick_hand_random(s, c, p):
    """A uniformly random card (by copy) of p's hand, or -1 when it is empty."""
    b = pb(p)
    n = s[b + L.PB_HAND_N]
    if n == 0:
        return -1
    r = rand_below(s, L.G_RNG, n)
    acc = 0
    m = s[b + L.PB_HAND_MASK]
    while m != 0:
        low = m & -m
        m ^= low
        i = low_index(low)
        acc += s[b + L.PB_HAND + i]
        if r < acc:
            return i
    return -1


@kernel
def strongest(s, c, mask):
    """The strongest card of ``mask`` (∞ strongest; ties: first in the card data), or -1."""
    best = -1
    key = -1
    while mask != 0:
        low = mask & -mask
        mask ^= low
        i = low_index(low)
        if c[L.C_KEY + i] > key:
            key = c[L.C_KEY + i]
            best = i
    return best


@kernel
def flip_all(s, c, p, keep):
    """All of p's face-down camp units turn face up, but for one copy of ``keep`` (or -1)."""
    b = pb(p)
    if s[b + L.PB_DOWN_MASK] == 0:
        return 0
    flipped = 0
    mask = s[b + L.PB_DOWN_MASK]
    while mask != 0:
        low = mask & -mask
        mask ^= low
        i = low_index(low)
        d = s[b + L.PB_DOWN + i]
        m = d - 1 if i == keep else d
        if m > 0:
            s[b + L.PB_DOWN + i] = d - m
            s[b + L.PB_UP + i] += m
            s[b + L.PB_UP_MASK] |= low
            flipped += m
        if s[b + L.PB_DOWN + i] == 0:
            s[b + L.PB_DOWN_MASK] &= ~low
    return flipped


# ------------------------------------------------------------------ walls
@hot
def push_wall(s, p, i):
    b = pb(p)
    n = s[b + L.PB_WALL_N]
    if n >= L.WALL_CAP:
        s[L.G_ERROR] = 1
        return
    s[b + L.PB_WALLS + n] = i
    s[b + L.PB_WALL_N] = n + 1


@kernel
def repair(s, c, lg, p, amount):
    """Push up to ``amount`` deck-top cards onto p's walls, never above the rule's `walls`
    (R11; ruling T4: the home castle counts as one wall)."""
    b = pb(p)
    done = 0
    for _ in range(amount):
        if wall_total(s, p) >= c[L.C_RULES + R_WALLS] or s[b + L.PB_DECK_N] == 0:
            break
        n = s[b + L.PB_DECK_N] - 1
        s[b + L.PB_DECK_N] = n
        i = s[b + L.PB_DECK + n]
        push_wall(s, p, i)
        log_ev(s, lg, L.EV_REPAIR, p, -1, 1, 0)
        done += 1
    return done


@hot
def wall_to_hand(s, p, i):
    hand_add(s, p, i)
    stat(s, L.ST_GAINED, i, 1)


# ------------------------------------------------------------------ game end
@kernel
def end_game(s, lg, winner, reason):
    s[L.G_WINNER] = winner
    s[L.G_END] = reason
    s[L.G_PHASE] = L.PH_OVER
    s[L.G_OPEN] = s[L.G_OPEN]  # the winning set stays on the field when a castle falls (R6)
    log_ev(s, lg, L.EV_END, winner, -1, reason, 0)


@kernel
def judge(s, c, lg, reason):
    """More walls wins; equal walls: the legacy tie-break on logistics (ruling E3: when
    `logistics` is on), else a draw (R13)."""
    wa = wall_total(s, 0)
    wb = wall_total(s, 1)
    if wa == wb and c[L.C_RULES + R_LOGISTICS] != 0:
        wa = s[L.P0 + L.PB_LOGI_N]
        wb = s[L.P1 + L.PB_LOGI_N]
    if wa > wb:
        end_game(s, lg, 0, reason)
    elif wb > wa:
        end_game(s, lg, 1, reason)
    else:
        end_game(s, lg, 2, reason)


@hot
def has_live_unit(s, c, p):
    """Does p have a unit in hand, deck or camp (R13 exhaustion; ruling E1: a card with a
    strength, generals included)?"""
    b = pb(p)
    if s[b + L.PB_HAND_MASK] & c[L.C_M_UNIT] != 0:
        return True
    if s[b + L.PB_UP_MASK] != 0 or s[b + L.PB_DOWN_MASK] != 0:
        return True
    for k in range(s[b + L.PB_DECK_N]):
        if c[L.C_FLAGS + s[b + L.PB_DECK + k]] & L.F_UNIT:
            return True
    return False


@kernel
def after_resolution(s, c, lg):
    """R13: once a battle or leader action has fully resolved, check exhaustion, the legacy
    stalemate and the turn limit; otherwise the next leader turn is due."""
    if s[L.G_PHASE] == L.PH_OVER:
        return
    for p in range(2):
        behind = wall_total(s, 1 - p) - wall_total(s, p)
        if behind > s[L.G_MAX_DEFICIT + p]:
            s[L.G_MAX_DEFICIT + p] = behind
    if not has_live_unit(s, c, 0) and not has_live_unit(s, c, 1):
        judge(s, c, lg, L.END_EXHAUSTION)
        return
    if s[L.G_STALEMATE] >= 2:
        judge(s, c, lg, L.END_STALEMATE)
        return
    if s[L.G_TURN_LIMIT] != 0:
        judge(s, c, lg, L.END_TURN_LIMIT)
        return
    s[L.G_PHASE] = L.PH_LEADER_START
    s[L.G_TO_MOVE] = s[L.G_LEADER]
