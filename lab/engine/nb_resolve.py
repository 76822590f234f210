"""Applying a decision and everything it sets off: leader-turn steps (R4), sets and battles (R5),
damage and the resolution order (R6), special answers (R7, R8, R10, R12), tactics (R9), castles
(R11) and the end-of-game checks (R13).

``begin_turn`` performs the automatic start of a leader turn; ``apply`` applies one action row.
Only ``@njit`` kernels; no I/O.
"""

from lab.engine.jit import hot, kernel

from lab.cards.vocab import Condition, Effect, Trigger
from lab.engine.layout import *  # noqa: F403
from lab.engine.nb_actions import has_lead, response_row
from lab.engine.nb_core import (break_walls, broken_to_grave_rule, camp_add, camp_remove,
                                castle_row, deal_opening, deck_push, draw, draw_n, end_game,
                                field_add, field_remove, flip_all, hand_add, hand_remove,
                                has_live_unit, judge, kill, kill_hand_random, log_ev, low_index,
                                pb, pick_hand_random, push_wall, rand_below, repair, stat,
                                strongest, wall_to_hand, wall_total, xoshiro_step)
from lab.rules import (R_DAMAGE_LAST_SET, R_GUN_RETREAT, R_HAND_CAP, R_LOGISTICS, R_MAX_TURNS,
                       R_PASS_COSTS_WALL)

T_ON_WIN = int(Trigger.ON_WIN)
T_ON_LEAD = int(Trigger.ON_LEAD)
T_ON_BUILD = int(Trigger.ON_BUILD)
T_ON_ATTACKED = int(Trigger.ON_ATTACKED)
T_STANDING = int(Trigger.STANDING)
T_RESPONSE = int(Trigger.RESPONSE)
T_AUTOMATIC = int(Trigger.AUTOMATIC)
T_ATTACHED = int(Trigger.ATTACHED)
T_PASSIVE = int(Trigger.PASSIVE)
E_FACEUP = int(Effect.WIN_SET_FACE_UP)
E_DRAW = int(Effect.DRAW)
E_EXTRA_DAMAGE = int(Effect.EXTRA_DAMAGE)
E_WALLS_TO_GRAVE = int(Effect.WALLS_TO_GRAVE)
E_REPAIR = int(Effect.REPAIR_WALL)
E_FLIP_STRONGEST = int(Effect.FLIP_STRONGEST)
E_FLIP_ALL = int(Effect.FLIP_ALL)
E_RETURN = int(Effect.RETURN_STRONGEST)
E_KILL_HAND = int(Effect.KILL_HAND)
E_KILL_CAMP = int(Effect.KILL_CAMP)
E_STEAL = int(Effect.STEAL_HAND)
E_WIPE_USER = int(Effect.WIPE_FIELD_USER_LEADS)
E_WIPE_ATTACKER = int(Effect.WIPE_FIELD_ATTACKER_LEADS)
E_SURPRISE = int(Effect.SURPRISE)
E_REARGUARD = int(Effect.REARGUARD)
E_STARVE = int(Effect.STARVE)
E_TENKA = int(Effect.TENKA_FUBU)
E_REDUCE = int(Effect.REDUCE_DAMAGE)
E_SELF_BREAK = int(Effect.SELF_BREAK)
E_ODAWARA = int(Effect.ODAWARA)
K_SINGLE = int(Condition.SINGLE)
K_EXCEPT_SELF = int(Condition.EXCEPT_SELF)
K_DMG3 = int(Condition.DAMAGE_AT_LEAST_3)
K_BROKE2 = int(Condition.BROKE_AT_LEAST_2)


@hot
def on_win_group(eff):
    """rules.md R6 step 5: repairs, flips, returns, kills, steals, draws (−1: not step 5)."""
    if eff == E_REPAIR:
        return 0
    if eff == E_FLIP_STRONGEST or eff == E_FLIP_ALL:
        return 1
    if eff == E_RETURN:
        return 2
    if eff == E_KILL_HAND or eff == E_KILL_CAMP:
        return 3
    if eff == E_STEAL:
        return 4
    if eff == E_DRAW:
        return 5
    return -1


# ------------------------------------------------------------------ small steps
@hot
def row_of(c, i, trig, eff):
    """Index (0–3) of card i's effect row with this trigger and effect, or 0."""
    for q in range(4):
        r = C_ROWS + i * 16 + q * 4
        if c[r] == trig and (eff == 0 or c[r + 1] == eff):
            return q
    return 0


@hot
def trigger(s, lg, p, i, row):
    stat(s, ST_TRIG + row, i, 1)
    log_ev(s, lg, EV_TRIGGER, p, i, row, 0)


@hot
def kill_field(s, c, lg, p):
    """Every card p has on the field dies."""
    b = pb(p)
    m = s[b + PB_FIELD_MASK]
    s[b + PB_FIELD_MASK] = 0
    while m != 0:
        low = m & -m
        m ^= low
        i = low_index(low)
        while s[b + PB_FIELD + i] > 0:
            s[b + PB_FIELD + i] -= 1
            kill(s, c, lg, p, i)


@hot
def close_battle(s):
    s[G_OPEN] = 0
    s[G_TOP_N] = 0
    s[G_TOP_KUR] = -1
    s[G_TOP_SHAPE] = 0
    s[G_TOP_OWNER] = -1
    s[G_PLAYS] = 0
    s[G_PLAYS + 1] = 0


@kernel
def after_resolution(s, c, lg):
    """R13: once a battle or leader action has fully resolved, check exhaustion, the legacy
    stalemate and the turn limit; otherwise the next leader turn is due."""
    if s[G_PHASE] == PH_OVER:
        return
    for p in range(2):
        behind = wall_total(s, 1 - p) - wall_total(s, p)
        if behind > s[G_MAX_DEFICIT + p]:
            s[G_MAX_DEFICIT + p] = behind
    if not has_live_unit(s, c, 0) and not has_live_unit(s, c, 1):
        judge(s, c, lg, END_EXHAUSTION)
        return
    if s[G_STALEMATE] >= 2:
        judge(s, c, lg, END_STALEMATE)
        return
    if s[G_TURN_LIMIT] != 0:
        judge(s, c, lg, END_TURN_LIMIT)
        return
    s[G_PHASE] = PH_LEADER_START
    s[G_TO_MOVE] = s[G_LEADER]


@hot
def begin_turn(s, c, lg):
    """The automatic start of a leader turn: count it, then 徴兵 (R4.1, hand_cap)."""
    p = s[G_LEADER]
    s[G_TO_MOVE] = p
    s[G_TURNS] += 1
    if s[G_TURNS] >= c[C_RULES + R_MAX_TURNS]:
        s[G_TURN_LIMIT] = 1
    log_ev(s, lg, EV_TURN, p, -1, s[G_TURNS], 0)
    cap = c[C_RULES + R_HAND_CAP]
    if cap == 0 or s[pb(p) + PB_HAND_N] < cap:
        draw(s, c, lg, p)
    s[G_PHASE] = PH_LEADER


@hot
def flip_camp(s, c, lg, p):
    """表返し (R4.3)."""
    n = flip_all(s, c, p, -1)
    if n > 0:
        log_ev(s, lg, EV_FLIP, p, -1, n, 0)


@hot
def play_set(s, c, lg, p, a, code):
    """Move the set of action row ``a`` from hand to the field as the new top set."""
    k = a[AX_N]
    top_str = 0
    same = True
    first_str = c[C_STR + a[AX_C0]]
    for j in range(k):
        i = a[AX_C0 + j]
        hand_remove(s, p, i)
        field_add(s, p, i)
        stat(s, ST_PLAYED, i, 1)
        s[G_TOP_CARDS + j] = i
        st = c[C_STR + i]
        if st > top_str:
            top_str = st
        if st != first_str:
            same = False
        log_ev(s, lg, code, p, i, j, k)
    kur = a[AX_KUR]
    if kur >= 0:
        hand_remove(s, p, kur)
        field_add(s, p, kur)
        stat(s, ST_PLAYED, kur, 1)
        log_ev(s, lg, code, p, kur, k, k)
    s[G_TOP_KUR] = kur
    s[G_TOP_N] = k
    s[G_TOP_STR] = top_str
    if k == 1 and top_str == INF:
        s[G_TOP_SHAPE] = SHAPE_INF
    elif same:
        s[G_TOP_SHAPE] = SHAPE_SAME
    else:
        s[G_TOP_SHAPE] = SHAPE_RUN
    s[G_TOP_OWNER] = p
    s[G_PLAYS + p] += 1


@hot
def pass_turn(s, p):
    s[G_TO_MOVE] = 1 - p
    s[G_PHASE] = PH_RESPONSE


@kernel
def pay_logistics(s, c, lg, p, n):
    """Legacy costs are paid with the most recently placed logistics cards, which die."""
    b = pb(p)
    for _ in range(n):
        k = s[b + PB_LOGI_N]
        if k == 0:
            return
        k -= 1
        s[b + PB_LOGI_N] = k
        i = s[b + PB_LOGI + k]
        log_ev(s, lg, EV_LOGI_PAY, p, i, 0, 0)
        kill(s, c, lg, p, i)


# ------------------------------------------------------------------ on-win effects (R6.5)
@kernel
def apply_on_win(s, c, lg, w, i, r):
    """One on-win effect row ``r`` of card ``i`` of winner ``w``; True if it changed the state."""
    d = 1 - w
    eff = c[r + 1]
    amt = c[r + 2]
    wb = pb(w)
    changed = False
    if eff == E_REPAIR:
        changed = repair(s, c, lg, w, amt) > 0
    elif eff == E_FLIP_STRONGEST:
        for _ in range(amt):
            f = strongest(s, c, s[wb + PB_DOWN_MASK])
            if f >= 0:
                camp_remove(s, w, f, False)
                camp_add(s, w, f, True)
                changed = True
    elif eff == E_FLIP_ALL:
        keep = i if c[r + 3] == K_EXCEPT_SELF else -1
        changed = flip_all(s, c, w, keep) > 0
    elif eff == E_RETURN:
        for _ in range(amt):
            f = strongest(s, c, s[wb + PB_UP_MASK])
            if f >= 0:
                camp_remove(s, w, f, True)
                hand_add(s, w, f)
                s[pb(d) + PB_KNOWN + f] += 1
                changed = True
    elif eff == E_KILL_HAND:
        for _ in range(amt):
            if kill_hand_random(s, c, lg, d) >= 0:
                changed = True
    elif eff == E_KILL_CAMP:
        db = pb(d)
        for _ in range(amt):
            f = strongest(s, c, s[db + PB_UP_MASK])
            up = True
            if f < 0:
                up = False
                total = 0
                for q in range(c[C_NLOC]):
                    total += s[db + PB_DOWN + q]
                if total > 0:
                    rr = rand_below(s, G_RNG, total)
                    acc = 0
                    for q in range(c[C_NLOC]):
                        acc += s[db + PB_DOWN + q]
                        if rr < acc:
                            f = q
                            break
            if f >= 0:
                camp_remove(s, d, f, up)
                kill(s, c, lg, d, f)
                changed = True
    elif eff == E_STEAL:
        for _ in range(amt):
            f = pick_hand_random(s, c, d)
            if f >= 0:
                hand_remove(s, d, f)
                stat(s, ST_STOLEN, f, 1)
                g = f
                if c[C_ORIGIN + f] != w and c[C_SAME + f] >= 0:
                    g = c[C_SAME + f]
                hand_add(s, w, g)
                s[pb(d) + PB_KNOWN + g] += 1
                s[G_STEALS + w] += 1
                log_ev(s, lg, EV_STEAL, w, g, f, 0)
                changed = True
    elif eff == E_DRAW:
        changed = draw_n(s, c, lg, w, amt) > 0
    return changed


@hot
def damage_abilities(s, c, lg, w, tn, extra_left, credit_grave, credit):
    """The winning set's on-win damage rows (R6 step 2, R12). Returns the bonus damage and
    whether a 破城-type row is in the set. With ``credit``, also count as triggers the bonus rows
    that broke one of ``extra_left`` extra walls and, if ``credit_grave``, the 破城 rows — an
    ability is credited only when it changed what happened."""
    bonus = 0
    grave = False
    for j in range(tn):
        i = s[G_TOP_CARDS + j]
        if c[C_FLAGS + i] & F_ON_WIN == 0:
            continue
        for q in range(4):
            r = C_ROWS + i * 16 + q * 4
            if c[r] != T_ON_WIN or (c[r + 3] == K_SINGLE and tn != 1):
                continue
            if c[r + 1] == E_EXTRA_DAMAGE:
                bonus += c[r + 2]
                if credit and extra_left > 0:
                    extra_left -= c[r + 2]
                    trigger(s, lg, w, i, q)
            elif c[r + 1] == E_WALLS_TO_GRAVE:
                grave = True
                if credit and credit_grave:
                    trigger(s, lg, w, i, q)
    return bonus, grave


@kernel
def resolve_win(s, c, lg, w, reduction, siege):
    """R6: the battle is won by ``w`` with the top set; resolve in the rulebook's order."""
    d = 1 - w
    wb = pb(w)
    tn = s[G_TOP_N]
    shape = s[G_TOP_SHAPE]
    wheel = s[G_TOP_KUR] >= 0
    s[G_WIN_RECORDED + w] += 1
    log_ev(s, lg, EV_WIN, w, -1, s[G_PLAYS + w], 0)
    # (1) every card on the field but the winning set and its 車懸り dies (年貢 triggers)
    for j in range(tn):
        field_remove(s, w, s[G_TOP_CARDS + j])
    if wheel:
        field_remove(s, w, s[G_TOP_KUR])
    kill_field(s, c, lg, w)
    kill_field(s, c, lg, d)
    for j in range(tn):
        field_add(s, w, s[G_TOP_CARDS + j])
    if wheel:
        field_add(s, w, s[G_TOP_KUR])
    # (2) damage, then 墨俣一夜城's repair
    if not siege:
        if c[C_RULES + R_DAMAGE_LAST_SET] != 0:
            base = tn
        else:
            base = s[G_PLAYS + w]
        bonus, grave_rows = damage_abilities(s, c, lg, w, tn, 0, False, False)
        grave_by_ability = grave_rows and not broken_to_grave_rule(c)
        to_grave = grave_rows or broken_to_grave_rule(c)
        dmg = base + bonus - reduction
        if dmg < 0:
            dmg = 0
        plain = base - reduction
        if plain < 0:
            plain = 0
        rg = castle_row(s, c, d, T_STANDING, E_REDUCE)
        if rg >= 0 and (c[rg + 3] != K_DMG3 or dmg >= 3):
            dmg -= c[rg + 2]
            if dmg < 0:
                dmg = 0
            cs = s[pb(d) + PB_CASTLE]
            trigger(s, lg, d, cs, (rg - C_ROWS - cs * 16) // 4)
        log_ev(s, lg, EV_DAMAGE, w, -1, dmg, 0)
        broken, fell = break_walls(s, c, lg, d, dmg, to_grave)
        # credit abilities only when they changed what happened
        if broken > 0 and (bonus > 0 or grave_by_ability):
            damage_abilities(s, c, lg, w, tn, broken - plain, grave_by_ability, True)
        if fell:
            # (3) the game ends with the winning set, and its 車懸り, still on the field
            end_game(s, lg, w, END_CASTLE_FELL)
            return
        rs = castle_row(s, c, d, T_ON_ATTACKED, E_REPAIR)
        if rs >= 0 and (c[rs + 3] != K_BROKE2 or broken >= 2):
            if repair(s, c, lg, d, c[rs + 2]) > 0:
                cs = s[pb(d) + PB_CASTLE]
                trigger(s, lg, d, cs, (rs - C_ROWS - cs * 16) // 4)
    # (4) the winning set goes to camp: face down, or face up (風林火山 / 車懸り)
    faceup = False
    if shape != SHAPE_INF:
        for j in range(tn):
            if c[C_FLAGS + s[G_TOP_CARDS + j]] & F_FACEUP:
                faceup = True
    up = wheel or faceup
    for j in range(tn):
        i = s[G_TOP_CARDS + j]
        field_remove(s, w, i)
        camp_add(s, w, i, up)
        stat(s, ST_WON, i, 1)
        log_ev(s, lg, EV_CAMP, w, i, 1 if up else 0, 0)
    if wheel:  # the battle is over: the 車懸り dies (R9)
        field_remove(s, w, s[G_TOP_KUR])
        kill(s, c, lg, w, s[G_TOP_KUR])
    if faceup and not wheel:
        for j in range(tn):
            i = s[G_TOP_CARDS + j]
            if c[C_FLAGS + i] & F_FACEUP:
                trigger(s, lg, w, i, row_of(c, i, T_ON_WIN, E_FACEUP))
    if wheel and not faceup:
        kur = s[G_TOP_KUR]
        trigger(s, lg, w, kur, row_of(c, kur, T_ATTACHED, 0))
    # (5) the winner's other on-win effects, by kind, then in set order
    has_on_win = False
    for j in range(tn):
        if c[C_FLAGS + s[G_TOP_CARDS + j]] & F_ON_WIN:
            has_on_win = True
    if has_on_win:
        for g in range(6):
            for j in range(tn):
                i = s[G_TOP_CARDS + j]
                if c[C_FLAGS + i] & F_ON_WIN == 0:
                    continue
                for q in range(4):
                    r = C_ROWS + i * 16 + q * 4
                    if c[r] != T_ON_WIN or on_win_group(c[r + 1]) != g:
                        continue
                    if c[r + 3] == K_SINGLE and tn != 1:
                        continue
                    if apply_on_win(s, c, lg, w, i, r):
                        trigger(s, lg, w, i, q)
    # (6) the winner leads next
    close_battle(s)
    s[G_LEADER] = w
    after_resolution(s, c, lg)


@kernel
def end_without_winner(s, c, lg, next_leader):
    close_battle(s)
    s[G_LEADER] = next_leader
    after_resolution(s, c, lg)


# ------------------------------------------------------------------ special answers
@kernel
def assassinate(s, c, lg, p, a):
    """R8: the assassin answers an ∞; it dies (or 影武者 saves it) and p wins at once."""
    q = 1 - p
    victim = s[G_TOP_CARDS]
    play_set(s, c, lg, p, a, EV_ANSWER)
    assassin = a[AX_C0]
    log_ev(s, lg, EV_ASSASSINATE, p, assassin, victim, 0)
    qb = pb(q)
    field_remove(s, q, victim)
    decoy = -1
    m = s[qb + PB_HAND_MASK] & c[C_M_DECOY]
    if m != 0:
        for i in range(c[C_NLOC]):
            if (m >> i) & 1:
                decoy = i
                break
    if decoy >= 0:
        hand_remove(s, q, decoy)
        stat(s, ST_PLAYED, decoy, 1)
        log_ev(s, lg, EV_DECOY, q, decoy, victim, 0)
        trigger(s, lg, q, decoy, row_of(c, decoy, T_AUTOMATIC, 0))
        kill(s, c, lg, q, decoy)
        hand_add(s, q, victim)
        s[pb(p) + PB_KNOWN + victim] += 1
    else:
        kill(s, c, lg, q, victim)
        trigger(s, lg, p, assassin, row_of(c, assassin, T_RESPONSE, 0))
    resolve_win(s, c, lg, p, 0, False)


@kernel
def tenka_fubu(s, c, lg, p, a):
    """R12 天下布武: 信長 answers an ∞; exactly ``cost`` random other hand cards die first."""
    nobu = a[AX_C0]
    r = response_row(c, nobu)
    cost = c[r + 2]
    play_set(s, c, lg, p, a, EV_ANSWER)
    log_ev(s, lg, EV_TENKA, p, nobu, cost, 0)
    for _ in range(cost):
        kill_hand_random(s, c, lg, p)
    trigger(s, lg, p, nobu, (r - C_ROWS - nobu * 16) // 4)
    pass_turn(s, p)


@kernel
def fire(s, c, lg, p):
    """R10: the top set (p's, just played) fires; no damage, no win; p leads next."""
    tn = s[G_TOP_N]
    log_ev(s, lg, EV_FIRE, p, s[G_TOP_CARDS], tn, 0)
    for j in range(tn):
        field_remove(s, p, s[G_TOP_CARDS + j])
    if c[C_RULES + R_GUN_RETREAT] != 0:
        for q in range(2):
            fb = pb(q) + PB_FIELD
            m = s[pb(q) + PB_FIELD_MASK]
            s[pb(q) + PB_FIELD_MASK] = 0
            while m != 0:
                low = m & -m
                m ^= low
                i = low_index(low)
                while s[fb + i] > 0:
                    s[fb + i] -= 1
                    if c[C_FLAGS + i] & F_UNIT:
                        camp_add(s, q, i, False)
                        log_ev(s, lg, EV_RETREAT, q, i, 0, 0)
                    else:
                        kill(s, c, lg, q, i)
    else:
        kill_field(s, c, lg, 1 - p)
        kill_field(s, c, lg, p)
    for j in range(tn):
        i = s[G_TOP_CARDS + j]
        camp_add(s, p, i, False)
        log_ev(s, lg, EV_CAMP, p, i, 0, 0)
    for j in range(tn):
        i = s[G_TOP_CARDS + j]
        if c[C_FLAGS + i] & F_GUN:
            trigger(s, lg, p, i, row_of(c, i, T_RESPONSE, 0))
            break
    end_without_winner(s, c, lg, p)


@kernel
def use_tactic(s, c, lg, p, a):
    """R9: a tactic instead of a response; it dies, then takes effect."""
    t = a[AX_X]
    attacker = s[G_TOP_OWNER]
    hand_remove(s, p, t)
    stat(s, ST_PLAYED, t, 1)
    if c[C_RULES + R_LOGISTICS] != 0:
        pay_logistics(s, c, lg, p, c[C_COST + t])
    r = response_row(c, t)
    eff = c[r + 1]
    log_ev(s, lg, EV_TACTIC, p, t, a[AX_C0], 0)
    kill(s, c, lg, p, t)
    trigger(s, lg, p, t, (r - C_ROWS - t * 16) // 4)
    if eff == E_WIPE_USER or eff == E_WIPE_ATTACKER:
        kill_field(s, c, lg, attacker)
        kill_field(s, c, lg, p)
        log_ev(s, lg, EV_FIELD_CLEARED, p, t, 0, 0)
        end_without_winner(s, c, lg, p if eff == E_WIPE_USER else attacker)
    elif eff == E_REARGUARD:
        resolve_win(s, c, lg, attacker, c[r + 2], False)
    elif eff == E_STARVE:
        single = s[G_TOP_CARDS]
        field_remove(s, attacker, single)
        camp_add(s, attacker, single, False)
        log_ev(s, lg, EV_STARVE, attacker, single, 0, 0)
        kill_field(s, c, lg, attacker)
        kill_field(s, c, lg, p)
        for _ in range(c[r + 2]):
            kill_hand_random(s, c, lg, attacker)
        end_without_winner(s, c, lg, p)
    elif eff == E_SURPRISE:
        u = a[AX_C0]
        single = s[G_TOP_CARDS]
        hand_remove(s, p, u)
        field_add(s, p, u)
        stat(s, ST_PLAYED, u, 1)
        log_ev(s, lg, EV_SURPRISE, p, u, single, 0)
        field_remove(s, attacker, single)
        kill(s, c, lg, attacker, single)
        s[G_TOP_CARDS] = u
        s[G_TOP_N] = 1
        s[G_TOP_STR] = c[C_STR + u]
        s[G_TOP_SHAPE] = SHAPE_SAME
        s[G_TOP_KUR] = -1
        s[G_TOP_OWNER] = p
        s[G_PLAYS + p] += 1
        pass_turn(s, p)


# ------------------------------------------------------------------ leader actions
@kernel
def miokuri(s, c, lg, p):
    """R4 見送り: yield the lead; under wall_to_hand the top wall comes to hand (落城 if last)."""
    forced = not has_lead(s, c, p)
    if c[C_RULES + R_PASS_COSTS_WALL] == 0:
        s[G_STALEMATE] = s[G_STALEMATE] + 1 if forced else 0
    log_ev(s, lg, EV_MIOKURI, p, -1, 1 if forced else 0, 0)
    s[G_LEADER] = 1 - p
    if c[C_RULES + R_PASS_COSTS_WALL] != 0:
        b = pb(p)
        n = s[b + PB_WALL_N]
        if n > 0:
            n -= 1
            s[b + PB_WALL_N] = n
            i = s[b + PB_WALLS + n]
            wall_to_hand(s, p, i)
            log_ev(s, lg, EV_WALL_TO_HAND, p, i, 0, 0)
            if n == 0 and s[b + PB_CASTLE] < 0:
                end_game(s, lg, 1 - p, END_CASTLE_FELL)
                return
        else:
            cs = s[b + PB_CASTLE]
            s[b + PB_CASTLE] = -1
            s[b + PB_CASTLE_DMG] = 0
            wall_to_hand(s, p, cs)
            log_ev(s, lg, EV_WALL_TO_HAND, p, cs, 1, 0)
            end_game(s, lg, 1 - p, END_CASTLE_FELL)
            return
    after_resolution(s, c, lg)


@kernel
def build(s, c, lg, p, cs):
    """R11 築城: the castle takes the 天守 slot; the 天守 card goes to hand; on-build effects."""
    b = pb(p)
    hand_remove(s, p, cs)
    stat(s, ST_PLAYED, cs, 1)
    n = s[b + PB_WALL_N]
    if n > 0:
        old = s[b + PB_WALLS]
        for k in range(n - 1):
            s[b + PB_WALLS + k] = s[b + PB_WALLS + k + 1]
        s[b + PB_WALL_N] = n - 1
        wall_to_hand(s, p, old)
        log_ev(s, lg, EV_BUILD, p, cs, old, 0)
    else:
        log_ev(s, lg, EV_BUILD, p, cs, -1, 0)
    s[b + PB_CASTLE] = cs
    s[b + PB_CASTLE_DMG] = 0
    for q in range(4):
        r = C_ROWS + cs * 16 + q * 4
        if c[r] != T_ON_BUILD:
            continue
        eff = c[r + 1]
        changed = False
        if eff == E_SELF_BREAK:
            for _ in range(c[r + 2]):
                k = s[b + PB_WALL_N]
                if k == 0:
                    break
                s[b + PB_WALL_N] = k - 1
                i = s[b + PB_WALLS + k - 1]
                wall_to_hand(s, p, i)
                log_ev(s, lg, EV_WALL_TO_HAND, p, i, 2, 0)
                changed = True
        elif eff == E_REPAIR:
            changed = repair(s, c, lg, p, c[r + 2]) > 0
        elif eff == E_FLIP_ALL:
            changed = flip_all(s, c, p, -1) > 0
        if changed:
            trigger(s, lg, p, cs, q)
    s[G_STALEMATE] = 0
    s[G_LEADER] = 1 - p
    after_resolution(s, c, lg)


@kernel
def logistics_action(s, c, lg, p, i):
    """Legacy 兵站 action: a hand card goes face up to logistics, draw 1, yield the lead."""
    b = pb(p)
    hand_remove(s, p, i)
    k = s[b + PB_LOGI_N]
    s[b + PB_LOGI + k] = i
    s[b + PB_LOGI_N] = k + 1
    log_ev(s, lg, EV_LOGISTICS, p, i, 0, 0)
    draw(s, c, lg, p)
    s[G_STALEMATE] = 0
    s[G_LEADER] = 1 - p
    after_resolution(s, c, lg)


@kernel
def fortify(s, c, lg, p):
    """Legacy 小田原城 総構え: pay 2 logistics, push the deck's top card onto the walls."""
    b = pb(p)
    pay_logistics(s, c, lg, p, 2)
    n = s[b + PB_DECK_N] - 1
    if n >= 0:  # a 年貢 paid as cost may have drawn the last deck card (ruling T6)
        s[b + PB_DECK_N] = n
        push_wall(s, p, s[b + PB_DECK + n])
    cs = s[b + PB_CASTLE]
    log_ev(s, lg, EV_FORTIFY, p, cs, 0, 0)
    r = castle_row(s, c, p, T_STANDING, E_ODAWARA)
    trigger(s, lg, p, cs, (r - C_ROWS - cs * 16) // 4)
    s[G_STALEMATE] = 0
    s[G_LEADER] = 1 - p
    after_resolution(s, c, lg)


# ------------------------------------------------------------------ mulligan (R3.4)
@kernel
def mulligan_due(s, c, p):
    b = pb(p)
    return s[b + PB_HAND_N] > 0 and s[b + PB_HAND_MASK] & c[C_M_LOW] == 0


@kernel
def next_mulligan(s, c, start):
    for p in range(start, 2):
        if mulligan_due(s, c, p):
            s[G_PHASE] = PH_MULLIGAN
            s[G_TO_MOVE] = p
            s[G_MULL_NEXT] = p + 1
            return
    s[G_PHASE] = PH_LEADER_START
    s[G_TO_MOVE] = s[G_LEADER]


@kernel
def shuffle_deck(s, p, at):
    """Fisher–Yates with the generator at ``s[at]``; its words stay in registers for the loop
    (the same draws as rand_below(s, at, k + 1) each time)."""
    b = pb(p)
    n = s[b + PB_DECK_N]
    r0 = s[at]
    r1 = s[at + 1]
    r2 = s[at + 2]
    r3 = s[at + 3]
    for k in range(n - 1, 0, -1):
        out, r0, r1, r2, r3 = xoshiro_step(r0, r1, r2, r3)
        j = (out * (k + 1)) >> 32
        t = s[b + PB_DECK + k]
        s[b + PB_DECK + k] = s[b + PB_DECK + j]
        s[b + PB_DECK + j] = t
    s[at] = r0
    s[at + 1] = r1
    s[at + 2] = r2
    s[at + 3] = r3


@kernel
def redraw(s, c, lg, p):
    b = pb(p)
    count = s[b + PB_HAND_N]
    for i in range(c[C_NLOC]):
        while s[b + PB_HAND + i] > 0:
            hand_remove(s, p, i)
            stat(s, ST_OPENING, i, -1)
            deck_push(s, p, i)
    shuffle_deck(s, p, G_DRNG if p == 0 else G_DRNG_B)
    deal_opening(s, p, count)


# ------------------------------------------------------------------ dispatch
@kernel
def apply(s, c, lg, a):
    """Apply one legal action row ``a`` for the player to move."""
    kind = a[AX_KIND]
    p = s[G_TO_MOVE]
    phase = s[G_PHASE]
    if kind == A_MULLIGAN or kind == A_KEEP:
        if kind == A_MULLIGAN:
            log_ev(s, lg, EV_MULLIGAN, p, -1, 0, 0)
            redraw(s, c, lg, p)
        else:
            log_ev(s, lg, EV_KEEP, p, -1, 0, 0)
        next_mulligan(s, c, s[G_MULL_NEXT])
        return
    s[G_DECISIONS] += 1
    cnt = G_CNT + p * N_CNT
    if kind == A_MIOKURI:
        s[cnt + CNT_MIOKURI] += 1
    elif kind == A_TACTIC:
        s[cnt + CNT_TACTIC] += 1
    elif kind == A_SIEGE:
        s[cnt + CNT_SIEGE] += 1
    elif kind == A_BUILD:
        s[cnt + CNT_BUILD] += 1
    elif kind == A_RETURN:
        s[cnt + CNT_RETURN] += 1
    elif kind == A_LEAD or kind == A_ANSWER:
        if a[AX_N] == 1 and c[C_STR + a[AX_C0]] == INF:
            s[cnt + CNT_INF] += 1
        if a[AX_FIRE] != 0:
            s[cnt + CNT_FIRE] += 1
    if phase == PH_RESPONSE and s[G_TOP_SHAPE] == SHAPE_INF:
        top = s[G_TOP_CARDS]
        if c[C_FLAGS + top] & F_IMMUNE and s[pb(p) + PB_HAND_MASK] & c[C_M_ASSASSIN]:
            # 毘沙門天 kept an assassin in this hand from answering
            trigger(s, lg, 1 - p, top, row_of(c, top, T_PASSIVE, 0))
    if kind == A_RETURN:
        i = a[AX_C0]
        camp_remove(s, p, i, True)
        hand_add(s, p, i)
        s[pb(1 - p) + PB_KNOWN + i] += 1
        log_ev(s, lg, EV_RETURN, p, i, 0, 0)
        flip_camp(s, c, lg, p)
        s[G_PHASE] = PH_LEADER_ACT
        return
    if phase == PH_LEADER:
        flip_camp(s, c, lg, p)
        s[G_PHASE] = PH_LEADER_ACT
    if kind == A_LEAD:
        s[G_OPEN] = 1
        s[G_LEADER] = p
        s[G_BATTLES] += 1
        s[G_STALEMATE] = 0
        s[G_PLAYS] = 0
        s[G_PLAYS + 1] = 0
        play_set(s, c, lg, p, a, EV_LEAD)
        for j in range(a[AX_N]):
            i = a[AX_C0 + j]
            if c[C_FLAGS + i] & F_ON_LEAD:
                for q in range(4):
                    r = C_ROWS + i * 16 + q * 4
                    if c[r] == T_ON_LEAD and c[r + 1] == E_DRAW:
                        if draw_n(s, c, lg, p, c[r + 2]) > 0:
                            trigger(s, lg, p, i, q)
        pass_turn(s, p)
    elif kind == A_ANSWER:
        i = a[AX_C0]
        if s[G_TOP_SHAPE] == SHAPE_INF and c[C_FLAGS + i] & F_ASSASSIN:
            assassinate(s, c, lg, p, a)
        elif s[G_TOP_SHAPE] == SHAPE_INF and c[C_FLAGS + i] & F_TENKA:
            tenka_fubu(s, c, lg, p, a)
        else:
            play_set(s, c, lg, p, a, EV_ANSWER)
            if a[AX_FIRE] != 0:
                fire(s, c, lg, p)
            else:
                pass_turn(s, p)
    elif kind == A_PASS:
        log_ev(s, lg, EV_PASS, p, -1, 0, 0)
        resolve_win(s, c, lg, s[G_TOP_OWNER], 0, False)
    elif kind == A_TACTIC:
        use_tactic(s, c, lg, p, a)
    elif kind == A_SIEGE:
        cs = a[AX_X]
        hand_remove(s, p, cs)
        stat(s, ST_PLAYED, cs, 1)
        log_ev(s, lg, EV_SIEGE, p, cs, 0, 0)
        kill(s, c, lg, p, cs)
        trigger(s, lg, p, cs, row_of(c, cs, T_RESPONSE, 0))
        resolve_win(s, c, lg, s[G_TOP_OWNER], 0, True)
    elif kind == A_MIOKURI:
        miokuri(s, c, lg, p)
    elif kind == A_BUILD:
        build(s, c, lg, p, a[AX_X])
    elif kind == A_LOGISTICS:
        logistics_action(s, c, lg, p, a[AX_X])
    elif kind == A_FORTIFY:
        fortify(s, c, lg, p)
