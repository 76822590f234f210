"""Kernels for the small moves every rule is made of: the generator, the log, zone moves, draws,
deaths (with 年貢), wall breaks and repairs, flips and returns, random hand picks.

Only ``@njit`` functions over the state ``s``, the context ``c`` and the log ``lg``; no I/O and no
Python objects, so the same code runs compiled and under NUMBA_DISABLE_JIT=1.
"""

import numba
from numba.cpython.unsafe.numbers import trailing_zeros

from lab.cards.vocab import Effect, Trigger
from lab.engine.jit import hot, kernel
from lab.engine.layout import *  # noqa: F403
from lab.rules import (R_BROKEN_TO_GRAVE, R_LOGISTICS, R_ODAWARA_FORTIFY, R_WALLS)

M32 = 0xFFFFFFFF
T_ON_DEATH = int(Trigger.ON_DEATH)
T_STANDING = int(Trigger.STANDING)
E_DRAW = int(Effect.DRAW)
E_ODAWARA = int(Effect.ODAWARA)
E_HOLD_ONCE = int(Effect.HOLD_ONCE)


# ------------------------------------------------------------------ generator (xoshiro128**)
@hot
def _rotl32(x, k):
    return ((x << k) | (x >> (32 - k))) & M32


@hot
def xoshiro_step(s0, s1, s2, s3):
    """One step of xoshiro128** on four 32-bit words held as ints: (output, new words). Every
    intermediate stays below 2**40, so int64 arithmetic is exact compiled or not."""
    result = (_rotl32((s1 * 5) & M32, 7) * 9) & M32
    t = (s1 << 9) & M32
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl32(s3, 11)
    return result, s0, s1, s2, s3


@hot
def next32(s, at):
    """Next 32-bit output of the generator whose four words start at ``s[at]``."""
    result, s0, s1, s2, s3 = xoshiro_step(s[at], s[at + 1], s[at + 2], s[at + 3])
    s[at] = s0
    s[at + 1] = s1
    s[at + 2] = s2
    s[at + 3] = s3
    return result


@hot
def rand_below(s, at, n):
    """A uniform integer in [0, n) from the generator at ``s[at]`` (n < 2**31)."""
    return (next32(s, at) * n) >> 32


# ------------------------------------------------------------------ log
@hot
def log_ev(s, lg, code, p, card, amount, extra):
    if s[G_LOG_ON] != 0:
        k = s[G_LOG_N]
        if k < lg.shape[0]:
            lg[k, 0] = code
            lg[k, 1] = p
            lg[k, 2] = card
            lg[k, 3] = amount
            lg[k, 4] = extra
        s[G_LOG_N] = k + 1


# ------------------------------------------------------------------ basics
@hot
def pb(p):
    return H_SIZE + p * P_SIZE


@hot
def stat(s, which, i, n):
    s[ST_BASE + which * NL + i] += n


@hot
def numval(st):
    """A strength as a number: ∞ counts as 10 (legacy logistics limit)."""
    return 10 if st == INF else st


@hot
def logi_limit(s, c, p):
    if c[C_RULES + R_LOGISTICS] != 0:
        return s[pb(p) + PB_LOGI_N]
    return 99


@hot
def wall_total(s, p):
    b = pb(p)
    return s[b + PB_WALL_N] + (1 if s[b + PB_CASTLE] >= 0 else 0)


@hot
def castle_row(s, c, p, trigger, effect):
    """Index of the standing home castle's row with this trigger and effect, or -1."""
    cs = s[pb(p) + PB_CASTLE]
    if cs < 0:
        return -1
    for j in range(4):
        r = C_ROWS + cs * 16 + j * 4
        if c[r] == trigger and c[r + 1] == effect:
            return r
    return -1


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
    s[b + PB_FIELD + i] += 1
    s[b + PB_FIELD_MASK] |= (1 << i)


@hot
def field_remove(s, p, i):
    b = pb(p)
    s[b + PB_FIELD + i] -= 1
    if s[b + PB_FIELD + i] == 0:
        s[b + PB_FIELD_MASK] &= ~(1 << i)


@hot
def hand_add(s, p, i):
    b = pb(p)
    s[b + PB_HAND + i] += 1
    s[b + PB_HAND_N] += 1
    s[b + PB_HAND_MASK] |= (1 << i)


@hot
def hand_remove(s, p, i):
    b = pb(p)
    left = s[b + PB_HAND + i] - 1
    s[b + PB_HAND + i] = left
    s[b + PB_HAND_N] -= 1
    if left == 0:
        s[b + PB_HAND_MASK] &= ~(1 << i)
    o = pb(1 - p) + PB_KNOWN + i
    if s[o] > left:
        s[o] = left


@hot
def camp_add(s, p, i, up):
    b = pb(p)
    if up:
        s[b + PB_UP + i] += 1
        s[b + PB_UP_MASK] |= (1 << i)
    else:
        s[b + PB_DOWN + i] += 1
        s[b + PB_DOWN_MASK] |= (1 << i)


@hot
def camp_remove(s, p, i, up):
    b = pb(p)
    if up:
        s[b + PB_UP + i] -= 1
        if s[b + PB_UP + i] == 0:
            s[b + PB_UP_MASK] &= ~(1 << i)
    else:
        s[b + PB_DOWN + i] -= 1
        if s[b + PB_DOWN + i] == 0:
            s[b + PB_DOWN_MASK] &= ~(1 << i)


@kernel
def draw(s, c, lg, p):
    """Draw the deck's top card into hand; -1 if the deck is empty."""
    b = pb(p)
    n = s[b + PB_DECK_N]
    if n == 0:
        return -1
    n -= 1
    i = s[b + PB_DECK + n]
    s[b + PB_DECK_N] = n
    hand_add(s, p, i)
    stat(s, ST_DRAWN, i, 1)
    if s[ST_BASE + ST_FIRST_DRAW * NL + i] == 0:
        s[ST_BASE + ST_FIRST_DRAW * NL + i] = max(1, s[G_TURNS])
    log_ev(s, lg, EV_DRAW, p, i, 1, 0)
    return i


@hot
def deal_opening(s, p, count):
    """Deal up to ``count`` deck-top cards into p's opening hand (set-up and mulligan redraw;
    not draws: they count as opening cards, not as drawn ones)."""
    b = pb(p)
    for _ in range(count):
        k = s[b + PB_DECK_N]
        if k == 0:
            break
        k -= 1
        s[b + PB_DECK_N] = k
        i = s[b + PB_DECK + k]
        hand_add(s, p, i)
        stat(s, ST_OPENING, i, 1)


@hot
def deck_push(s, p, i):
    """Put card i on top of p's deck (before a shuffle)."""
    b = pb(p)
    k = s[b + PB_DECK_N]
    s[b + PB_DECK + k] = i
    s[b + PB_DECK_N] = k + 1


@kernel
def draw_n(s, c, lg, p, n):
    got = 0
    for _ in range(n):
        if draw(s, c, lg, p) >= 0:
            got += 1
    return got


@hot
def kill(s, c, lg, p, i):
    """Card ``i`` (already taken out of its zone) dies into the graveyard of ``p``, who
    controls it; 年貢-style on-death effects trigger wherever it died (R12)."""
    s[pb(p) + PB_GRAVE + i] += 1
    stat(s, ST_DIED, i, 1)
    log_ev(s, lg, EV_DIE, p, i, 0, 0)
    if c[C_FLAGS + i] & F_ON_DEATH:
        _on_death(s, c, lg, p, i)


@kernel
def _on_death(s, c, lg, p, i):
    """The on-death draw rows (年貢) of card i, which p controlled."""
    for j in range(4):
        r = C_ROWS + i * 16 + j * 4
        if c[r] == T_ON_DEATH and c[r + 1] == E_DRAW:
            if draw_n(s, c, lg, p, c[r + 2]) > 0:
                stat(s, ST_TRIG + j, i, 1)
                log_ev(s, lg, EV_TRIGGER, p, i, j, 0)


@kernel
def pick_hand_random(s, c, p):
    """A uniformly random card (by copy) of p's hand, or -1 when it is empty."""
    b = pb(p)
    n = s[b + PB_HAND_N]
    if n == 0:
        return -1
    r = rand_below(s, G_RNG, n)
    acc = 0
    m = s[b + PB_HAND_MASK]
    while m != 0:
        low = m & -m
        m ^= low
        i = low_index(low)
        acc += s[b + PB_HAND + i]
        if r < acc:
            return i
    return -1


@kernel
def kill_hand_random(s, c, lg, p):
    i = pick_hand_random(s, c, p)
    if i >= 0:
        hand_remove(s, p, i)
        kill(s, c, lg, p, i)
    return i


@kernel
def strongest(s, c, mask):
    """The strongest card of ``mask`` (∞ strongest; ties: first in the card data), or -1."""
    best = -1
    key = -1
    while mask != 0:
        low = mask & -mask
        mask ^= low
        i = low_index(low)
        if c[C_KEY + i] > key:
            key = c[C_KEY + i]
            best = i
    return best


@kernel
def flip_all(s, c, p, keep):
    """All of p's face-down camp units turn face up, but for one copy of ``keep`` (or -1)."""
    b = pb(p)
    if s[b + PB_DOWN_MASK] == 0:
        return 0
    flipped = 0
    mask = s[b + PB_DOWN_MASK]
    while mask != 0:
        low = mask & -mask
        mask ^= low
        i = low_index(low)
        d = s[b + PB_DOWN + i]
        m = d - 1 if i == keep else d
        if m > 0:
            s[b + PB_DOWN + i] = d - m
            s[b + PB_UP + i] += m
            s[b + PB_UP_MASK] |= low
            flipped += m
        if s[b + PB_DOWN + i] == 0:
            s[b + PB_DOWN_MASK] &= ~low
    return flipped


# ------------------------------------------------------------------ walls
@hot
def push_wall(s, p, i):
    b = pb(p)
    n = s[b + PB_WALL_N]
    if n >= WALL_CAP:
        s[G_ERROR] = 1
        return
    s[b + PB_WALLS + n] = i
    s[b + PB_WALL_N] = n + 1


@kernel
def repair(s, c, lg, p, amount):
    """Push up to ``amount`` deck-top cards onto p's walls, never above the rule's `walls`."""
    b = pb(p)
    done = 0
    for _ in range(amount):
        if wall_total(s, p) >= c[C_RULES + R_WALLS] or s[b + PB_DECK_N] == 0:
            break
        n = s[b + PB_DECK_N] - 1
        s[b + PB_DECK_N] = n
        i = s[b + PB_DECK + n]
        push_wall(s, p, i)
        log_ev(s, lg, EV_REPAIR, p, -1, 1, 0)
        done += 1
    return done


@hot
def wall_to_hand(s, p, i):
    hand_add(s, p, i)
    stat(s, ST_GAINED, i, 1)


@kernel
def break_walls(s, c, lg, d, dmg, to_grave):
    """An attack breaks ``dmg`` walls of ``d`` from the top (R6, R11). Returns walls broken;
    sets the game over if the 天守 broke. 姫路城 holds once; 小田原城 (draw) draws per wall that
    went to hand."""
    b = pb(d)
    broken = 0
    odawara = -1
    if c[C_RULES + R_ODAWARA_FORTIFY] == 0:
        odawara = castle_row(s, c, d, T_STANDING, E_ODAWARA)
    for _ in range(dmg):
        n = s[b + PB_WALL_N]
        if n > 0:
            n -= 1
            s[b + PB_WALL_N] = n
            i = s[b + PB_WALLS + n]
            broken += 1
            log_ev(s, lg, EV_BREAK, d, i, 1 if to_grave else 0, 0)
            if to_grave:
                kill(s, c, lg, d, i)
            else:
                wall_to_hand(s, d, i)
                if odawara >= 0:
                    if draw_n(s, c, lg, d, c[odawara + 2]) > 0:
                        cs = s[b + PB_CASTLE]
                        row = (odawara - C_ROWS - cs * 16) // 4
                        stat(s, ST_TRIG + row, cs, 1)
                        log_ev(s, lg, EV_TRIGGER, d, cs, row, 0)
            if n == 0 and s[b + PB_CASTLE] < 0:
                return broken, True
        else:
            cs = s[b + PB_CASTLE]
            if cs < 0:
                return broken, True
            hold = castle_row(s, c, d, T_STANDING, E_HOLD_ONCE)
            if hold >= 0 and s[b + PB_CASTLE_DMG] == 0:
                s[b + PB_CASTLE_DMG] = 1
                stat(s, ST_TRIG + (hold - C_ROWS - cs * 16) // 4, cs, 1)
                log_ev(s, lg, EV_HOLD, d, cs, 0, 0)
                return broken, False
            s[b + PB_CASTLE] = -1
            s[b + PB_CASTLE_DMG] = 0
            broken += 1
            log_ev(s, lg, EV_BREAK, d, cs, 1 if to_grave else 0, 1)
            if to_grave:
                kill(s, c, lg, d, cs)
            else:
                wall_to_hand(s, d, cs)
            return broken, True
    return broken, False


@hot
def broken_to_grave_rule(c):
    return c[C_RULES + R_BROKEN_TO_GRAVE] != 0


# ------------------------------------------------------------------ game end
@kernel
def end_game(s, lg, winner, reason):
    s[G_WINNER] = winner
    s[G_END] = reason
    s[G_PHASE] = PH_OVER
    s[G_OPEN] = s[G_OPEN]  # the winning set stays on the field when a castle falls (R6)
    log_ev(s, lg, EV_END, winner, -1, reason, 0)


@kernel
def judge(s, c, lg, reason):
    """More walls wins; equal walls: the legacy tie-break on logistics, else a draw (R13)."""
    wa = wall_total(s, 0)
    wb = wall_total(s, 1)
    if wa == wb and c[C_RULES + R_LOGISTICS] != 0:
        wa = s[P0 + PB_LOGI_N]
        wb = s[P1 + PB_LOGI_N]
    if wa > wb:
        end_game(s, lg, 0, reason)
    elif wb > wa:
        end_game(s, lg, 1, reason)
    else:
        end_game(s, lg, 2, reason)


@hot
def has_live_unit(s, c, p):
    """Does p have a unit in hand, deck or camp (R13 exhaustion)?"""
    b = pb(p)
    if s[b + PB_HAND_MASK] & c[C_M_UNIT] != 0:
        return True
    if s[b + PB_UP_MASK] != 0 or s[b + PB_DOWN_MASK] != 0:
        return True
    for k in range(s[b + PB_DECK_N]):
        if c[C_FLAGS + s[b + PB_DECK + k]] & F_UNIT:
            return True
    return False
