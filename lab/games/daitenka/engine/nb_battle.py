"""A battle from its first set to its end: sets on the field (R5), the win and its resolution
order (R6), wall damage and the standing castles (R6, R11), special answers (R7, R8, R10, R12)
and tactics (R9).

``resolve_win`` is written in R6's numbered steps. Effects that change the state run through
``nb_effects``; the effects that modify a rule — extra damage, 破城, 風林火山, 車懸り, 岐阜城,
姫路城, 小田原城 — are read here, where the rule is. Only ``@njit`` kernels; no I/O.
"""

from lab.games.daitenka.cards.vocab import Effect, Trigger
from lab.games.daitenka.engine import layout as L
from lab.jit import hot, kernel
from lab.games.daitenka.engine.nb_actions import response_row
from lab.games.daitenka.engine.nb_core import (
    after_resolution,
    amount_of,
    camp_add,
    castle_of,
    castle_row,
    draw_n,
    effect_of,
    end_game,
    field_add,
    field_remove,
    find_row,
    hand_add,
    hand_mask,
    hand_remove,
    log_ev,
    low_index,
    pb,
    row_at,
    stat,
    trigger_of,
    wall_count,
    wall_to_hand,
)
from lab.games.daitenka.engine.nb_effects import (
    N_ON_WIN_GROUPS,
    ON_WIN_GROUP_OF,
    apply_effect,
    condition_met,
    count_trigger,
    credit,
    fire_rows,
    kill,
    kill_field,
    kill_hand_random,
)
from lab.games.daitenka.rules import (
    R_BROKEN_TO_GRAVE,
    R_DAMAGE_LAST_SET,
    R_GUN_RETREAT,
    R_LOGISTICS,
)

T_ON_WIN = int(Trigger.ON_WIN)
T_ON_ATTACKED = int(Trigger.ON_ATTACKED)
T_STANDING = int(Trigger.STANDING)
T_RESPONSE = int(Trigger.RESPONSE)
T_AUTOMATIC = int(Trigger.AUTOMATIC)
T_ATTACHED = int(Trigger.ATTACHED)
E_FACEUP = int(Effect.WIN_SET_FACE_UP)
E_EXTRA_DAMAGE = int(Effect.EXTRA_DAMAGE)
E_WALLS_TO_GRAVE = int(Effect.WALLS_TO_GRAVE)
E_WIPE_USER = int(Effect.WIPE_FIELD_USER_LEADS)
E_WIPE_ATTACKER = int(Effect.WIPE_FIELD_ATTACKER_LEADS)
E_SURPRISE = int(Effect.SURPRISE)
E_REARGUARD = int(Effect.REARGUARD)
E_STARVE = int(Effect.STARVE)
E_REDUCE = int(Effect.REDUCE_DAMAGE)
E_HOLD_ONCE = int(Effect.HOLD_ONCE)
E_ODAWARA_DRAW = int(Effect.ODAWARA_DRAW)


# ------------------------------------------------------------------ sets on the field (R5)
@hot
def close_battle(s):
    s[L.G_OPEN] = 0
    s[L.G_TOP_N] = 0
    s[L.G_TOP_KURUMAGAKARI] = -1
    s[L.G_TOP_SHAPE] = 0
    s[L.G_TOP_OWNER] = -1
    s[L.G_PLAYS] = 0
    s[L.G_PLAYS + 1] = 0


@hot
def play_set(s, c, lg, p, a, code):
    """Move the set of action row ``a`` from hand to the field as the new top set, its cards in
    the order written (ruling S6: on-win effects of one kind resolve in that order)."""
    k = a[L.AX_N]
    top_str = 0
    same = True
    first_str = c[L.C_STR + a[L.AX_C0]]
    for j in range(k):
        i = a[L.AX_C0 + j]
        hand_remove(s, p, i)
        field_add(s, p, i)
        stat(s, L.ST_PLAYED, i, 1)
        s[L.G_TOP_CARDS + j] = i
        st = c[L.C_STR + i]
        if st > top_str:
            top_str = st
        if st != first_str:
            same = False
        log_ev(s, lg, code, p, i, j, k)
    kurumagakari = a[L.AX_KURUMAGAKARI]
    if kurumagakari >= 0:
        hand_remove(s, p, kurumagakari)
        field_add(s, p, kurumagakari)
        stat(s, L.ST_PLAYED, kurumagakari, 1)
        log_ev(s, lg, code, p, kurumagakari, k, k)
    s[L.G_TOP_KURUMAGAKARI] = kurumagakari
    s[L.G_TOP_N] = k
    s[L.G_TOP_STR] = top_str
    if k == 1 and top_str == L.INF:
        s[L.G_TOP_SHAPE] = L.SHAPE_INF
    elif same:
        s[L.G_TOP_SHAPE] = L.SHAPE_SAME
    else:
        s[L.G_TOP_SHAPE] = L.SHAPE_RUN
    s[L.G_TOP_OWNER] = p
    s[L.G_PLAYS + p] += 1


@hot
def pass_turn(s, p):
    s[L.G_TO_MOVE] = 1 - p
    s[L.G_PHASE] = L.PH_RESPONSE


@kernel
def pay_logistics(s, c, lg, p, n):
    """Legacy costs are paid with the most recently placed logistics cards, which die."""
    b = pb(p)
    for _ in range(n):
        k = s[b + L.PB_LOGI_N]
        if k == 0:
            return
        k -= 1
        s[b + L.PB_LOGI_N] = k
        i = s[b + L.PB_LOGI + k]
        log_ev(s, lg, L.EV_LOGI_PAY, p, i, 0, 0)
        kill(s, c, lg, p, i)


# ------------------------------------------------------------------ wall damage (R6, R11)
@hot
def broken_to_grave_rule(c):
    return c[L.C_RULES + R_BROKEN_TO_GRAVE] != 0


@kernel
def break_walls(s, c, lg, d, dmg, to_grave):
    """An attack breaks ``dmg`` walls of ``d`` from the top (R6, R11). Returns walls broken and
    whether the 天守 broke (the game is lost). 姫路城 holds once; 小田原城 (odawara = draw) draws
    per wall that went to hand."""
    b = pb(d)
    broken = 0
    odawara = castle_row(s, c, d, T_STANDING, E_ODAWARA_DRAW)
    for _ in range(dmg):
        n = wall_count(s, d)
        if n > 0:
            n -= 1
            s[b + L.PB_WALL_N] = n
            i = s[b + L.PB_WALLS + n]
            broken += 1
            log_ev(s, lg, L.EV_BREAK, d, i, 1 if to_grave else 0, 0)
            if to_grave:
                kill(s, c, lg, d, i)
            else:
                wall_to_hand(s, d, i)
                if odawara >= 0 and draw_n(s, c, lg, d, amount_of(c, odawara)) > 0:
                    credit(s, lg, d, castle_of(s, d), odawara)
            if n == 0 and castle_of(s, d) < 0:
                return broken, True
        else:
            cs = castle_of(s, d)
            if cs < 0:
                return broken, True
            hold = castle_row(s, c, d, T_STANDING, E_HOLD_ONCE)
            if hold >= 0 and s[b + L.PB_CASTLE_DMG] == 0:
                s[b + L.PB_CASTLE_DMG] = 1
                count_trigger(s, cs, hold)  # the log tells it as EV_HOLD, not EV_TRIGGER
                log_ev(s, lg, L.EV_HOLD, d, cs, 0, 0)
                return broken, False
            s[b + L.PB_CASTLE] = -1
            s[b + L.PB_CASTLE_DMG] = 0
            broken += 1
            log_ev(s, lg, L.EV_BREAK, d, cs, 1 if to_grave else 0, 1)
            if to_grave:
                kill(s, c, lg, d, cs)
            else:
                wall_to_hand(s, d, cs)
            return broken, True
    return broken, False


@kernel
def damage_abilities(s, c, lg, w, tn, extra_left, credit_grave, credit_rows):
    """The winning set's on-win damage rows (R6 step 2, R12). Returns the bonus damage and
    whether a 破城-type row is in the set. With ``credit_rows``, also count as triggers the bonus
    rows that broke one of ``extra_left`` extra walls and, if ``credit_grave``, the 破城 rows —
    an ability is credited only when it changed what happened."""
    bonus = 0
    grave = False
    for j in range(tn):
        i = s[L.G_TOP_CARDS + j]
        if c[L.C_FLAGS + i] & L.F_ON_WIN == 0:
            continue
        for q in range(L.ROWS_PER_CARD):
            r = row_at(i, q)
            if trigger_of(c, r) != T_ON_WIN or not condition_met(c, r, tn):
                continue
            if effect_of(c, r) == E_EXTRA_DAMAGE:
                bonus += amount_of(c, r)
                if credit_rows and extra_left > 0:
                    extra_left -= amount_of(c, r)
                    credit(s, lg, w, i, r)
            elif effect_of(c, r) == E_WALLS_TO_GRAVE:
                grave = True
                if credit_rows and credit_grave:
                    credit(s, lg, w, i, r)
    return bonus, grave


# ------------------------------------------------------------------ the win (R6)
@kernel
def resolve_win(s, c, lg, w, reduction, siege):
    """R6: the battle is won by ``w`` with the top set; resolve in the rulebook's order."""
    d = 1 - w
    tn = s[L.G_TOP_N]
    shape = s[L.G_TOP_SHAPE]
    kurumagakari = s[L.G_TOP_KURUMAGAKARI]
    s[L.G_WIN_RECORDED + w] += 1
    log_ev(s, lg, L.EV_WIN, w, -1, s[L.G_PLAYS + w], 0)
    # (1) every card on the field but the winning set and its 車懸り dies (年貢 triggers)
    for j in range(tn):
        field_remove(s, w, s[L.G_TOP_CARDS + j])
    if kurumagakari >= 0:
        field_remove(s, w, kurumagakari)
    kill_field(s, c, lg, w)
    kill_field(s, c, lg, d)
    for j in range(tn):
        field_add(s, w, s[L.G_TOP_CARDS + j])
    if kurumagakari >= 0:
        field_add(s, w, kurumagakari)
    # (2) damage, then the defender's on-attacked rows (墨俣一夜城's repair); 籠城 stops all of
    # it, ability damage included (ruling T2)
    if not siege:
        if c[L.C_RULES + R_DAMAGE_LAST_SET] != 0:
            base = tn
        else:
            base = s[L.G_PLAYS + w]
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
        if rg >= 0 and condition_met(c, rg, dmg):
            dmg -= amount_of(c, rg)
            if dmg < 0:
                dmg = 0
            credit(s, lg, d, castle_of(s, d), rg)
        log_ev(s, lg, L.EV_DAMAGE, w, -1, dmg, 0)
        broken, fell = break_walls(s, c, lg, d, dmg, to_grave)
        # credit abilities only when they changed what happened
        if broken > 0 and (bonus > 0 or grave_by_ability):
            damage_abilities(s, c, lg, w, tn, broken - plain, grave_by_ability, True)
        if fell:
            # (3) the game ends with the winning set, and its 車懸り, still on the field
            end_game(s, lg, w, L.END_CASTLE_FELL)
            return
        cs = castle_of(s, d)
        if cs >= 0:
            fire_rows(s, c, lg, d, cs, T_ON_ATTACKED, broken)
    # (4) the winning set goes to camp: face down, or face up (風林火山 / 車懸り)
    faceup = False
    if shape != L.SHAPE_INF:
        for j in range(tn):
            if c[L.C_FLAGS + s[L.G_TOP_CARDS + j]] & L.F_FACEUP:
                faceup = True
    up = kurumagakari >= 0 or faceup
    for j in range(tn):
        i = s[L.G_TOP_CARDS + j]
        field_remove(s, w, i)
        camp_add(s, w, i, up)
        stat(s, L.ST_WON, i, 1)
        log_ev(s, lg, L.EV_CAMP, w, i, 1 if up else 0, 0)
    if kurumagakari >= 0:  # the battle is over: the 車懸り dies (R9)
        field_remove(s, w, kurumagakari)
        kill(s, c, lg, w, kurumagakari)
    if faceup and kurumagakari < 0:
        for j in range(tn):
            i = s[L.G_TOP_CARDS + j]
            if c[L.C_FLAGS + i] & L.F_FACEUP:
                credit(s, lg, w, i, find_row(c, i, T_ON_WIN, E_FACEUP))
    if kurumagakari >= 0 and not faceup:
        credit(s, lg, w, kurumagakari, find_row(c, kurumagakari, T_ATTACHED, 0))
    # (5) the winner's other on-win effects, by kind, then in set order
    has_on_win = False
    for j in range(tn):
        if c[L.C_FLAGS + s[L.G_TOP_CARDS + j]] & L.F_ON_WIN:
            has_on_win = True
    if has_on_win:
        for g in range(N_ON_WIN_GROUPS):
            for j in range(tn):
                i = s[L.G_TOP_CARDS + j]
                if c[L.C_FLAGS + i] & L.F_ON_WIN == 0:
                    continue
                for q in range(L.ROWS_PER_CARD):
                    r = row_at(i, q)
                    if (
                        trigger_of(c, r) == T_ON_WIN
                        and ON_WIN_GROUP_OF[effect_of(c, r)] == g
                        and condition_met(c, r, tn)
                        and apply_effect(s, c, lg, w, i, r)
                    ):
                        credit(s, lg, w, i, r)
    # (6) the winner leads next
    close_battle(s)
    s[L.G_LEADER] = w
    after_resolution(s, c, lg)


@kernel
def end_without_winner(s, c, lg, next_leader):
    close_battle(s)
    s[L.G_LEADER] = next_leader
    after_resolution(s, c, lg)


# ------------------------------------------------------------------ special answers
@kernel
def assassinate(s, c, lg, p, a):
    """R8: the assassin answers an ∞; it dies (or 影武者 saves it) and p wins at once."""
    q = 1 - p
    victim = s[L.G_TOP_CARDS]
    play_set(s, c, lg, p, a, L.EV_ANSWER)
    assassin = a[L.AX_C0]
    log_ev(s, lg, L.EV_ASSASSINATE, p, assassin, victim, 0)
    field_remove(s, q, victim)
    decoy = -1
    m = hand_mask(s, q) & c[L.C_M_DECOY]
    if m != 0:
        decoy = low_index(m & -m)
    if decoy >= 0:
        hand_remove(s, q, decoy)
        stat(s, L.ST_PLAYED, decoy, 1)
        log_ev(s, lg, L.EV_DECOY, q, decoy, victim, 0)
        credit(s, lg, q, decoy, find_row(c, decoy, T_AUTOMATIC, 0))
        kill(s, c, lg, q, decoy)
        hand_add(s, q, victim)
        s[pb(p) + L.PB_KNOWN + victim] += 1
    else:
        kill(s, c, lg, q, victim)
        credit(s, lg, p, assassin, response_row(c, assassin))
    resolve_win(s, c, lg, p, 0, False)


@kernel
def tenka_fubu(s, c, lg, p, a):
    """R12 天下布武: 信長 answers an ∞; exactly ``cost`` random other hand cards die first."""
    nobunaga = a[L.AX_C0]
    r = response_row(c, nobunaga)
    cost = amount_of(c, r)
    play_set(s, c, lg, p, a, L.EV_ANSWER)
    log_ev(s, lg, L.EV_TENKA, p, nobunaga, cost, 0)
    for _ in range(cost):
        kill_hand_random(s, c, lg, p)
    credit(s, lg, p, nobunaga, r)
    pass_turn(s, p)


@kernel
def fire(s, c, lg, p):
    """R10: the top set (p's, just played) fires; no damage, no win; p leads next."""
    tn = s[L.G_TOP_N]
    log_ev(s, lg, L.EV_FIRE, p, s[L.G_TOP_CARDS], tn, 0)
    for j in range(tn):
        field_remove(s, p, s[L.G_TOP_CARDS + j])
    if c[L.C_RULES + R_GUN_RETREAT] != 0:
        for q in range(2):
            fb = pb(q) + L.PB_FIELD
            m = s[pb(q) + L.PB_FIELD_MASK]
            s[pb(q) + L.PB_FIELD_MASK] = 0
            while m != 0:
                low = m & -m
                m ^= low
                i = low_index(low)
                while s[fb + i] > 0:
                    s[fb + i] -= 1
                    if c[L.C_FLAGS + i] & L.F_UNIT:  # ruling S5: a non-unit (車懸り) dies
                        camp_add(s, q, i, False)
                        log_ev(s, lg, L.EV_RETREAT, q, i, 0, 0)
                    else:
                        kill(s, c, lg, q, i)
    else:
        kill_field(s, c, lg, 1 - p)
        kill_field(s, c, lg, p)
    for j in range(tn):
        i = s[L.G_TOP_CARDS + j]
        camp_add(s, p, i, False)
        log_ev(s, lg, L.EV_CAMP, p, i, 0, 0)
    for j in range(tn):
        i = s[L.G_TOP_CARDS + j]
        if c[L.C_FLAGS + i] & L.F_GUN:
            credit(s, lg, p, i, response_row(c, i))
            break
    end_without_winner(s, c, lg, p)


# ------------------------------------------------------------------ tactics (R9)
@kernel
def use_tactic(s, c, lg, p, a):
    """R9: a tactic instead of a response; it dies, then takes effect."""
    t = a[L.AX_X]
    attacker = s[L.G_TOP_OWNER]
    hand_remove(s, p, t)
    stat(s, L.ST_PLAYED, t, 1)
    if c[L.C_RULES + R_LOGISTICS] != 0:
        pay_logistics(s, c, lg, p, c[L.C_COST + t])
    r = response_row(c, t)
    eff = effect_of(c, r)
    log_ev(s, lg, L.EV_TACTIC, p, t, a[L.AX_C0], 0)
    kill(s, c, lg, p, t)
    credit(s, lg, p, t, r)
    if eff == E_WIPE_USER or eff == E_WIPE_ATTACKER:
        kill_field(s, c, lg, attacker)
        kill_field(s, c, lg, p)
        log_ev(s, lg, L.EV_FIELD_CLEARED, p, t, 0, 0)
        end_without_winner(s, c, lg, p if eff == E_WIPE_USER else attacker)
    elif eff == E_REARGUARD:
        resolve_win(s, c, lg, attacker, amount_of(c, r), False)
    elif eff == E_STARVE:
        single = s[L.G_TOP_CARDS]
        field_remove(s, attacker, single)
        camp_add(s, attacker, single, False)
        log_ev(s, lg, L.EV_STARVE, attacker, single, 0, 0)
        kill_field(s, c, lg, attacker)
        kill_field(s, c, lg, p)
        for _ in range(amount_of(c, r)):  # the starved single's owner's hand (ruling T1)
            kill_hand_random(s, c, lg, attacker)
        end_without_winner(s, c, lg, p)
    elif eff == E_SURPRISE:
        u = a[L.AX_C0]
        single = s[L.G_TOP_CARDS]
        hand_remove(s, p, u)
        field_add(s, p, u)
        stat(s, L.ST_PLAYED, u, 1)
        log_ev(s, lg, L.EV_SURPRISE, p, u, single, 0)
        field_remove(s, attacker, single)
        kill(s, c, lg, attacker, single)
        s[L.G_TOP_CARDS] = u
        s[L.G_TOP_N] = 1
        s[L.G_TOP_STR] = c[L.C_STR + u]
        s[L.G_TOP_SHAPE] = L.SHAPE_SAME
        s[L.G_TOP_KURUMAGAKARI] = -1
        s[L.G_TOP_OWNER] = p
        s[L.G_PLAYS + p] += 1
        pass_turn(s, p)
