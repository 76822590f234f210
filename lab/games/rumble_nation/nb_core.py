"""Rumble Nation's rules as kernels: set-up (RN2), rolls and the legal placements
(RN3), applying a decision, the war phase (RN4) and the final ranking (RN5).

Only ``@kernel``/``@hot`` functions over the state ``s`` and the context ``c`` (layout in
``nb_layout``); no I/O, no Python objects, nothing allocated, so the same code runs compiled and
under NUMBA_DISABLE_JIT=1. Bots, the batch loop and the invariant checks live in their own files.
"""

from lab.jit import hot, kernel
from lab.jit.nb_rng import next32, rand_below  # noqa: F401  (the shared generator)
from lab.games.rumble_nation import nb_layout as L


# ------------------------------------------------------------------ field access
@hot
def pf(s, f, p):
    """Per-seat field ``f`` (a ``P_*`` constant) of seat ``p``."""
    return s[L.S_P + f * L.MAXP + p]


@hot
def pf_add(s, f, p, v):
    s[L.S_P + f * L.MAXP + p] += v


@hot
def pf_set(s, f, p, v):
    s[L.S_P + f * L.MAXP + p] = v


@hot
def men(s, t, p):
    """Seat p's soldiers in slot t (token t + 2), the daimyo not included."""
    return s[L.S_MEN + t * L.MAXP + p]


@hot
def reinf(s, t, p):
    return s[L.S_REINF + t * L.MAXP + p]


@hot
def present(s, t, p):
    """Seat p has a meeple of its own (soldier or daimyo) in slot t."""
    return s[L.S_MEN + t * L.MAXP + p] > 0 or s[L.S_P + L.P_DAIMYO * L.MAXP + p] == t


@hot
def power(s, t, p):
    """RN4.1: soldiers + reinforcements, the daimyo counting 2 (RN6)."""
    d = 2 if s[L.S_P + L.P_DAIMYO * L.MAXP + p] == t else 0
    return s[L.S_MEN + t * L.MAXP + p] + s[L.S_REINF + t * L.MAXP + p] + d


@hot
def in_stock(s, p):
    return s[L.S_P + L.P_STOCK * L.MAXP + p] + s[L.S_P + L.P_DSTOCK * L.MAXP + p]


@hot
def placed_count(c, single, stock):
    """RN3.3: soldiers a single die places (the toggle table), all that is left if fewer."""
    n = c[L.C_COUNT + (single - 1) // 2]
    return stock if stock < n else n


@hot
def encode_place(pair_sum, single, daimyo):
    return 1 + daimyo + 2 * (single - 1) + 12 * (pair_sum - 2)


# ------------------------------------------------------------------ set-up (RN2)
@kernel
def clear(s, c):
    """Every field to its value before the first placement: empty map, full stocks, no token
    taken. Leaves the token layout (S_AREA) and the generators alone."""
    n = c[L.C_PLAYERS]
    for i in range(L.S_PHASE, L.S_AREA):
        s[i] = 0
    for i in range(L.S_LARGE, L.S_SIZE):
        s[i] = 0
    for t in range(L.NA):
        s[L.S_LARGE + t] = -1
        s[L.S_SMALL + t] = -1
        s[L.S_ORDER + t] = -1
    d = c[L.C_DAIMYO]
    for p in range(L.MAXP):
        pf_set(s, L.P_DAIMYO, p, -1)
        if p < n:
            pf_set(s, L.P_STOCK, p, c[L.C_SOLDIERS])
            pf_set(s, L.P_DSTOCK, p, d)
            pf_set(s, L.P_TOTAL, p, c[L.C_SOLDIERS] + d)
    s[L.S_NEXT_CHIP] = n
    s[L.S_WINNER] = -1


@kernel
def link_board(s, c):
    """From the token layout S_AREA: the inverse S_SLOT and the slot adjacency S_ADJ."""
    for t in range(L.NA):
        s[L.S_SLOT + s[L.S_AREA + t]] = t
    for t in range(L.NA):
        m = c[L.C_AREA_ADJ + s[L.S_AREA + t]]
        out = 0
        a = 0
        while m != 0:
            if m & 1:
                out |= 1 << s[L.S_SLOT + a]
            m >>= 1
            a += 1
        s[L.S_ADJ + t] = out


@kernel
def setup(s, c, seeds, first):
    """A new game from 12 seed words: [0:4] deal the tokens and draw the start player (unless
    ``first`` ≥ 0 names it), [4:8] the dice, [8:12] the bots."""
    for k in range(4):
        s[L.S_DICE_RNG + k] = seeds[k]  # the deal stream, used here only
    for t in range(L.NA):
        s[L.S_AREA + t] = t
    for t in range(L.NA - 1, 0, -1):  # RN2: a seeded shuffle of the 11 large tokens
        j = rand_below(s, L.S_DICE_RNG, t + 1)
        a = s[L.S_AREA + t]
        s[L.S_AREA + t] = s[L.S_AREA + j]
        s[L.S_AREA + j] = a
    start = first
    if start < 0:
        start = rand_below(s, L.S_DICE_RNG, c[L.C_PLAYERS])
    for k in range(4):
        s[L.S_DICE_RNG + k] = seeds[4 + k]
        s[L.S_BOT_RNG + k] = seeds[8 + k]
    clear(s, c)
    link_board(s, c)
    start_play(s, c, start)


@kernel
def start_play(s, c, start):
    """The start player (or, if their stock is empty, the next seat with meeples) is to move;
    with every stock empty the war phase runs at once."""
    s[L.S_FIRST] = start
    s[L.S_TO_MOVE] = start
    if in_stock(s, start) == 0:
        advance(s, c, start)


# ------------------------------------------------------------------ placement phase (RN3)
@kernel
def roll(s):
    """RN3.1: three dice from the dice generator onto the table."""
    r = rand_below(s, L.S_DICE_RNG, 216)
    set_dice(s, r % 6 + 1, (r // 6) % 6 + 1, r // 36 + 1)


@hot
def set_dice(s, d0, d1, d2):
    s[L.S_DIE] = d0
    s[L.S_DIE + 1] = d1
    s[L.S_DIE + 2] = d2
    s[L.S_STAGE] = L.ST_CHOOSE
    s[L.S_ROLLS] += 1


@kernel
def legal(s, c, acts):
    """The distinct decisions open with the dice on the table, into ``acts``; returns how many.
    Reroll first (RN3.1), then per distinct single die (RN3.2: equal splits are one choice) the
    placement without and with the daimyo (RN6)."""
    p = s[L.S_TO_MOVE]
    n = 0
    if c[L.C_REROLL] != 0 and s[L.S_REROLLED] == 0:
        acts[0] = L.A_REROLL
        n = 1
    d0 = s[L.S_DIE]
    d1 = s[L.S_DIE + 1]
    d2 = s[L.S_DIE + 2]
    total = d0 + d1 + d2
    stock = pf(s, L.P_STOCK, p)
    ds = pf(s, L.P_DSTOCK, p)
    for k in range(3):
        v = d0 if k == 0 else (d1 if k == 1 else d2)
        if (k >= 1 and v == d0) or (k == 2 and v == d1):
            continue
        code = encode_place(total - v, v, 0)
        if stock >= placed_count(c, v, stock + ds):
            acts[n] = code
            n += 1
        if ds != 0:  # the daimyo may be one of the meeples placed; forced if soldiers run short
            acts[n] = code + 1
            n += 1
    return n


@kernel
def apply(s, c, a):
    """Apply a legal decision of the seat to move: a reroll or a placement (RN3), then pass the
    turn on; the last placement runs the war phase and the ranking."""
    p = s[L.S_TO_MOVE]
    s[L.S_DECISIONS] += 1
    if a == L.A_REROLL:
        s[L.S_REROLLED] = 1
        pf_add(s, L.P_REROLLS, p, 1)
        s[L.S_STAGE] = L.ST_ROLL
        s[L.S_DIE] = 0
        s[L.S_DIE + 1] = 0
        s[L.S_DIE + 2] = 0
        return
    daimyo = (a - 1) & 1
    single = ((a - 1) >> 1) % 6 + 1
    t = (a - 1) // 12
    n = placed_count(c, single, in_stock(s, p))
    s[L.S_MEN + t * L.MAXP + p] += n - daimyo
    pf_add(s, L.P_STOCK, p, daimyo - n)
    if daimyo != 0:
        pf_set(s, L.P_DAIMYO, p, t)
        pf_set(s, L.P_DSTOCK, p, 0)
    pf_add(s, L.P_PLACED, p, n)
    pf_add(s, L.P_TURNS, p, 1)
    s[L.S_TURNS] += 1
    if in_stock(s, p) == 0:  # RN3: the biggest chip left, then skip the rest of the phase
        pf_set(s, L.P_CHIP, p, s[L.S_NEXT_CHIP])
        s[L.S_NEXT_CHIP] -= 1
    advance(s, c, p)


@kernel
def advance(s, c, p):
    """Clockwise to the next seat with meeples in stock (possibly ``p`` again); none: war."""
    n = c[L.C_PLAYERS]
    s[L.S_REROLLED] = 0
    s[L.S_STAGE] = L.ST_ROLL
    s[L.S_DIE] = 0
    s[L.S_DIE + 1] = 0
    s[L.S_DIE + 2] = 0
    for i in range(1, n + 1):
        q = (p + i) % n
        if in_stock(s, q) > 0:
            s[L.S_TO_MOVE] = q
            return
    war(s, c)


# ------------------------------------------------------------------ war phase (RN4) and end (RN5)
@kernel
def war(s, c):
    """Resolve every slot in ascending token number: the highest power takes the large token
    (ties: the bigger sword chip), the runner-up the small one (RN4.2), and the winner reinforces
    the adjacent unresolved areas where it has meeples (RN4.3). An area nobody holds sets its
    token aside."""
    n = c[L.C_PLAYERS]
    r = c[L.C_REINF]
    for t in range(L.NA):
        s[L.S_ORDER + s[L.S_NRESOLVED]] = t
        s[L.S_NRESOLVED] += 1
        best = -1
        best_pw = -1
        best_chip = -1
        sec = -1
        sec_pw = -1
        sec_chip = -1
        here = 0
        for p in range(n):
            if not present(s, t, p):
                continue
            here += 1
            pw = power(s, t, p)
            chip = pf(s, L.P_CHIP, p)
            if pw > best_pw or (pw == best_pw and chip > best_chip):
                sec = best
                sec_pw = best_pw
                sec_chip = best_chip
                best = p
                best_pw = pw
                best_chip = chip
            elif pw > sec_pw or (pw == sec_pw and chip > sec_chip):
                sec = p
                sec_pw = pw
                sec_chip = chip
        if here == 0:
            continue
        s[L.S_LARGE + t] = best
        pf_add(s, L.P_SCORE, best, t + 2)
        pf_add(s, L.P_LARGE_N, best, 1)
        if c[L.C_SECOND] != 0 and here >= 2:
            s[L.S_SMALL + t] = sec
            pf_add(s, L.P_SCORE, sec, (t + 2) // 2)
            pf_add(s, L.P_SMALL_N, sec, 1)
        if r > 0:
            m = s[L.S_ADJ + t] >> (t + 1)  # only areas still holding their large token
            u = t + 1
            while m != 0:
                if (m & 1) != 0 and present(s, u, best):
                    s[L.S_REINF + u * L.MAXP + best] += r
                    pf_add(s, L.P_REINF_N, best, r)
                m >>= 1
                u += 1
    rank(s, c)
    s[L.S_PHASE] = L.PH_OVER


@kernel
def rank(s, c):
    """RN5: ranks by score, ties to the bigger sword chip; rank 1 wins."""
    n = c[L.C_PLAYERS]
    for p in range(n):
        k = 1
        sp = pf(s, L.P_SCORE, p)
        cp = pf(s, L.P_CHIP, p)
        for q in range(n):
            sq = pf(s, L.P_SCORE, q)
            if sq > sp or (sq == sp and pf(s, L.P_CHIP, q) > cp):
                k += 1
        pf_set(s, L.P_RANK, p, k)
        if k == 1:
            s[L.S_WINNER] = p


# ------------------------------------------------------------------ the result row
@kernel
def record(s, c, row):
    row[L.R_FIRST] = s[L.S_FIRST]
    row[L.R_WINNER] = s[L.S_WINNER]
    row[L.R_TURNS] = s[L.S_TURNS]
    row[L.R_ROLLS] = s[L.S_ROLLS]
    row[L.R_DECISIONS] = s[L.S_DECISIONS]
    for p in range(L.MAXP):
        row[L.R_SEAT + L.RS_SCORE * L.MAXP + p] = pf(s, L.P_SCORE, p)
        row[L.R_SEAT + L.RS_RANK * L.MAXP + p] = pf(s, L.P_RANK, p)
        row[L.R_SEAT + L.RS_CHIP * L.MAXP + p] = pf(s, L.P_CHIP, p)
        row[L.R_SEAT + L.RS_REROLLS * L.MAXP + p] = pf(s, L.P_REROLLS, p)
        row[L.R_SEAT + L.RS_TURNS * L.MAXP + p] = pf(s, L.P_TURNS, p)
        row[L.R_SEAT + L.RS_LARGE * L.MAXP + p] = pf(s, L.P_LARGE_N, p)
        row[L.R_SEAT + L.RS_SMALL * L.MAXP + p] = pf(s, L.P_SMALL_N, p)
        d = pf(s, L.P_DAIMYO, p)
        row[L.R_SEAT + L.RS_DAIMYO * L.MAXP + p] = d + 2 if d >= 0 else 0
        row[L.R_SEAT + L.RS_REINF * L.MAXP + p] = pf(s, L.P_REINF_N, p)
    n = c[L.C_PLAYERS]
    for t in range(L.NA):
        row[L.R_TOKEN + L.RT_AREA * L.NA + t] = s[L.S_AREA + t]
        w = s[L.S_LARGE + t]
        row[L.R_TOKEN + L.RT_LARGE * L.NA + t] = w
        row[L.R_TOKEN + L.RT_SMALL * L.NA + t] = s[L.S_SMALL + t]
        k = 0
        for p in range(n):
            if present(s, t, p):
                k += 1
        row[L.R_TOKEN + L.RT_PRESENT * L.NA + t] = k
        row[L.R_TOKEN + L.RT_POWER * L.NA + t] = power(s, t, w) if w >= 0 else 0
