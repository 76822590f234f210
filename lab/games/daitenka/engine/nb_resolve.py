"""Applying a decision: the leader turn's automatic steps and actions (R4), 築城 (R11), the
mulligan (R3.4), and ``apply``, which hands each decision to the kernel that resolves it —
``nb_battle`` for sets, answers and tactics.

``begin_turn`` performs the automatic start of a leader turn; ``apply`` applies one action row.
Only ``@njit`` kernels; no I/O.
"""

from lab.games.daitenka.cards.vocab import Trigger
from lab.games.daitenka.engine import layout as L
from lab.jit import hot, kernel
from lab.games.daitenka.engine.nb_actions import fortify_row, has_lead
from lab.games.daitenka.engine.nb_battle import (
    assassinate,
    fire,
    pass_turn,
    pay_logistics,
    play_set,
    resolve_win,
    tenka_fubu,
    use_tactic,
)
from lab.games.daitenka.engine.nb_core import (
    after_resolution,
    amount_of,
    camp_remove,
    castle_of,
    deal_opening,
    deck_push,
    draw,
    end_game,
    find_row,
    flip_all,
    hand_add,
    hand_remove,
    log_ev,
    pb,
    push_wall,
    stat,
    wall_to_hand,
)
from lab.games.daitenka.engine.nb_effects import credit, fire_rows, kill
from lab.jit.nb_rng import xoshiro_step
from lab.games.daitenka.rules import R_HAND_CAP, R_MAX_TURNS, R_PASS_COSTS_WALL

T_ON_LEAD = int(Trigger.ON_LEAD)
T_ON_BUILD = int(Trigger.ON_BUILD)
T_RESPONSE = int(Trigger.RESPONSE)
T_PASSIVE = int(Trigger.PASSIVE)


@hot
def begin_turn(s, c, lg):
    """The automatic start of a leader turn: count it, then 徴兵 (R4.1, hand_cap). It runs when
    the leader's first decision is asked for (ruling L2); the max_turns-th turn marks the game
    to be judged once this turn has resolved (R13, ruling E2)."""
    p = s[L.G_LEADER]
    s[L.G_TO_MOVE] = p
    s[L.G_TURNS] += 1
    if s[L.G_TURNS] >= c[L.C_RULES + R_MAX_TURNS]:
        s[L.G_TURN_LIMIT] = 1
    log_ev(s, lg, L.EV_TURN, p, -1, s[L.G_TURNS], 0)
    cap = c[L.C_RULES + R_HAND_CAP]
    if cap == 0 or s[pb(p) + L.PB_HAND_N] < cap:
        draw(s, c, lg, p)
    s[L.G_PHASE] = L.PH_LEADER


@hot
def flip_camp(s, c, lg, p):
    """表返し (R4.3)."""
    n = flip_all(s, c, p, -1)
    if n > 0:
        log_ev(s, lg, L.EV_FLIP, p, -1, n, 0)


# ------------------------------------------------------------------ leader actions
@kernel
def miokuri(s, c, lg, p):
    """R4 見送り: yield the lead; under wall_to_hand the top wall comes to hand (落城 if last)
    whatever `broken_walls` says, and 小田原城 does not draw: it is not an attack (ruling L4)."""
    forced = not has_lead(s, c, p)
    if c[L.C_RULES + R_PASS_COSTS_WALL] == 0:
        s[L.G_STALEMATE] = s[L.G_STALEMATE] + 1 if forced else 0
    log_ev(s, lg, L.EV_MIOKURI, p, -1, 1 if forced else 0, 0)
    s[L.G_LEADER] = 1 - p
    if c[L.C_RULES + R_PASS_COSTS_WALL] != 0:
        b = pb(p)
        n = s[b + L.PB_WALL_N]
        if n > 0:
            n -= 1
            s[b + L.PB_WALL_N] = n
            i = s[b + L.PB_WALLS + n]
            wall_to_hand(s, p, i)
            log_ev(s, lg, L.EV_WALL_TO_HAND, p, i, 0, 0)
            if n == 0 and s[b + L.PB_CASTLE] < 0:
                end_game(s, lg, 1 - p, L.END_CASTLE_FELL)
                return
        else:
            cs = s[b + L.PB_CASTLE]
            s[b + L.PB_CASTLE] = -1
            s[b + L.PB_CASTLE_DMG] = 0
            wall_to_hand(s, p, cs)
            log_ev(s, lg, L.EV_WALL_TO_HAND, p, cs, 1, 0)
            end_game(s, lg, 1 - p, L.END_CASTLE_FELL)
            return
    after_resolution(s, c, lg)


@kernel
def build(s, c, lg, p, cs):
    """R11 築城: the castle takes the 天守 slot; the 天守 card goes to hand; on-build effects."""
    b = pb(p)
    hand_remove(s, p, cs)
    stat(s, L.ST_PLAYED, cs, 1)
    n = s[b + L.PB_WALL_N]
    if n > 0:
        old = s[b + L.PB_WALLS]
        for k in range(n - 1):
            s[b + L.PB_WALLS + k] = s[b + L.PB_WALLS + k + 1]
        s[b + L.PB_WALL_N] = n - 1
        wall_to_hand(s, p, old)
        log_ev(s, lg, L.EV_BUILD, p, cs, old, 0)
    else:
        log_ev(s, lg, L.EV_BUILD, p, cs, -1, 0)
    s[b + L.PB_CASTLE] = cs
    s[b + L.PB_CASTLE_DMG] = 0
    fire_rows(s, c, lg, p, cs, T_ON_BUILD, 0)
    s[L.G_STALEMATE] = 0
    s[L.G_LEADER] = 1 - p
    after_resolution(s, c, lg)


@kernel
def logistics_action(s, c, lg, p, i):
    """Legacy 兵站 action: a hand card goes face up to logistics, draw 1, yield the lead."""
    b = pb(p)
    hand_remove(s, p, i)
    k = s[b + L.PB_LOGI_N]
    s[b + L.PB_LOGI + k] = i
    s[b + L.PB_LOGI_N] = k + 1
    log_ev(s, lg, L.EV_LOGISTICS, p, i, 0, 0)
    draw(s, c, lg, p)
    s[L.G_STALEMATE] = 0
    s[L.G_LEADER] = 1 - p
    after_resolution(s, c, lg)


@kernel
def fortify(s, c, lg, p):
    """Legacy 小田原城 総構え: pay the row's logistics cards, push the deck's top card onto the
    walls."""
    b = pb(p)
    cs = castle_of(s, p)
    r = fortify_row(s, c, p)
    pay_logistics(s, c, lg, p, amount_of(c, r))
    n = s[b + L.PB_DECK_N] - 1
    if n >= 0:  # a 年貢 paid as cost may have drawn the last deck card (ruling T6)
        s[b + L.PB_DECK_N] = n
        push_wall(s, p, s[b + L.PB_DECK + n])
    log_ev(s, lg, L.EV_FORTIFY, p, cs, 0, 0)
    credit(s, lg, p, cs, r)
    s[L.G_STALEMATE] = 0
    s[L.G_LEADER] = 1 - p
    after_resolution(s, c, lg)


# ------------------------------------------------------------------ mulligan (R3.4)
@kernel
def mulligan_due(s, c, p):
    b = pb(p)
    return s[b + L.PB_HAND_N] > 0 and s[b + L.PB_HAND_MASK] & c[L.C_M_LOW] == 0


@kernel
def next_mulligan(s, c, start):
    for p in range(start, 2):
        if mulligan_due(s, c, p):
            s[L.G_PHASE] = L.PH_MULLIGAN
            s[L.G_TO_MOVE] = p
            s[L.G_MULL_NEXT] = p + 1
            return
    s[L.G_PHASE] = L.PH_LEADER_START
    s[L.G_TO_MOVE] = s[L.G_LEADER]


@kernel
def shuffle_deck(s, p, at):
    """Fisher–Yates with the generator at ``s[at]``; its words stay in registers for the loop
    (the same draws as rand_below(s, at, k + 1) each time)."""
    b = pb(p)
    n = s[b + L.PB_DECK_N]
    r0 = s[at]
    r1 = s[at + 1]
    r2 = s[at + 2]
    r3 = s[at + 3]
    for k in range(n - 1, 0, -1):
        out, r0, r1, r2, r3 = xoshiro_step(r0, r1, r2, r3)
        j = (out * (k + 1)) >> 32
        t = s[b + L.PB_DECK + k]
        s[b + L.PB_DECK + k] = s[b + L.PB_DECK + j]
        s[b + L.PB_DECK + j] = t
    s[at] = r0
    s[at + 1] = r1
    s[at + 2] = r2
    s[at + 3] = r3


@kernel
def redraw(s, c, lg, p):
    b = pb(p)
    count = s[b + L.PB_HAND_N]
    for i in range(c[L.C_NLOC]):
        while s[b + L.PB_HAND + i] > 0:
            hand_remove(s, p, i)
            stat(s, L.ST_OPENING, i, -1)
            deck_push(s, p, i)
    shuffle_deck(s, p, L.G_DRNG if p == 0 else L.G_DRNG_B)
    deal_opening(s, p, count)


# ------------------------------------------------------------------ dispatch
@kernel
def apply(s, c, lg, a):
    """Apply one legal action row ``a`` for the player to move."""
    kind = a[L.AX_KIND]
    p = s[L.G_TO_MOVE]
    phase = s[L.G_PHASE]
    if kind == L.A_MULLIGAN or kind == L.A_KEEP:
        if kind == L.A_MULLIGAN:
            log_ev(s, lg, L.EV_MULLIGAN, p, -1, 0, 0)
            redraw(s, c, lg, p)
        else:
            log_ev(s, lg, L.EV_KEEP, p, -1, 0, 0)
        next_mulligan(s, c, s[L.G_MULL_NEXT])
        return
    s[L.G_DECISIONS] += 1
    cnt = L.G_CNT + p * L.N_CNT
    if kind == L.A_MIOKURI:
        s[cnt + L.CNT_MIOKURI] += 1
    elif kind == L.A_TACTIC:
        s[cnt + L.CNT_TACTIC] += 1
    elif kind == L.A_SIEGE:
        s[cnt + L.CNT_SIEGE] += 1
    elif kind == L.A_BUILD:
        s[cnt + L.CNT_BUILD] += 1
    elif kind == L.A_RETURN:
        s[cnt + L.CNT_RETURN] += 1
    elif kind == L.A_LEAD or kind == L.A_ANSWER:
        if a[L.AX_N] == 1 and c[L.C_STR + a[L.AX_C0]] == L.INF:
            s[cnt + L.CNT_INF] += 1
        if a[L.AX_FIRE] != 0:
            s[cnt + L.CNT_FIRE] += 1
    if phase == L.PH_RESPONSE and s[L.G_TOP_SHAPE] == L.SHAPE_INF:
        top = s[L.G_TOP_CARDS]
        if c[L.C_FLAGS + top] & L.F_IMMUNE and s[pb(p) + L.PB_HAND_MASK] & c[L.C_M_ASSASSIN]:
            # 毘沙門天 kept an assassin in this hand from answering
            credit(s, lg, 1 - p, top, find_row(c, top, T_PASSIVE, 0))
    if kind == L.A_RETURN:  # 帰陣 is its own decision, then the flip (ruling L1)
        i = a[L.AX_C0]
        camp_remove(s, p, i, True)
        hand_add(s, p, i)
        s[pb(1 - p) + L.PB_KNOWN + i] += 1
        log_ev(s, lg, L.EV_RETURN, p, i, 0, 0)
        flip_camp(s, c, lg, p)
        s[L.G_PHASE] = L.PH_LEADER_ACT
        return
    if phase == L.PH_LEADER:
        flip_camp(s, c, lg, p)
        s[L.G_PHASE] = L.PH_LEADER_ACT
    if kind == L.A_LEAD:
        s[L.G_OPEN] = 1
        s[L.G_LEADER] = p
        s[L.G_BATTLES] += 1
        s[L.G_STALEMATE] = 0
        s[L.G_PLAYS] = 0
        s[L.G_PLAYS + 1] = 0
        play_set(s, c, lg, p, a, L.EV_LEAD)
        for j in range(a[L.AX_N]):
            i = a[L.AX_C0 + j]
            if c[L.C_FLAGS + i] & L.F_ON_LEAD:
                fire_rows(s, c, lg, p, i, T_ON_LEAD, a[L.AX_N])
        pass_turn(s, p)
    elif kind == L.A_ANSWER:
        i = a[L.AX_C0]
        if s[L.G_TOP_SHAPE] == L.SHAPE_INF and c[L.C_FLAGS + i] & L.F_ASSASSIN:
            assassinate(s, c, lg, p, a)
        elif s[L.G_TOP_SHAPE] == L.SHAPE_INF and c[L.C_FLAGS + i] & L.F_TENKA:
            tenka_fubu(s, c, lg, p, a)
        else:
            play_set(s, c, lg, p, a, L.EV_ANSWER)
            if a[L.AX_FIRE] != 0:
                fire(s, c, lg, p)
            else:
                pass_turn(s, p)
    elif kind == L.A_PASS:
        log_ev(s, lg, L.EV_PASS, p, -1, 0, 0)
        resolve_win(s, c, lg, s[L.G_TOP_OWNER], 0, False)
    elif kind == L.A_TACTIC:
        use_tactic(s, c, lg, p, a)
    elif kind == L.A_SIEGE:
        cs = a[L.AX_X]
        hand_remove(s, p, cs)
        stat(s, L.ST_PLAYED, cs, 1)
        log_ev(s, lg, L.EV_SIEGE, p, cs, 0, 0)
        kill(s, c, lg, p, cs)
        credit(s, lg, p, cs, find_row(c, cs, T_RESPONSE, 0))
        resolve_win(s, c, lg, s[L.G_TOP_OWNER], 0, True)
    elif kind == L.A_MIOKURI:
        miokuri(s, c, lg, p)
    elif kind == L.A_BUILD:
        build(s, c, lg, p, a[L.AX_X])
    elif kind == L.A_LOGISTICS:
        logistics_action(s, c, lg, p, a[L.AX_X])
    elif kind == L.A_FORTIFY:
        fortify(s, c, lg, p)
