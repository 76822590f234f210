"""The effect interpreter: what an ability row does to the game, for every trigger, and deaths.

A card's row (trigger, effect, amount, condition; ``nb_core``'s named accessors) is run here
whatever set it off — a won battle (R6 step 5), a lead (海運), a death (年貢), a build (犬山城,
大坂城, 郡山城), an attack on a castle's walls (墨俣一夜城) — so an effect is written once and every
trigger the support table (``lab.games.daitenka.cards.vocab.SUPPORT``) allows can carry it. A new effect that
changes the state is a branch of ``apply_effect`` (or of ``apply_gentle_effect`` if it kills
nothing), its name in the vocabulary and the table, the card data and a scenario.

Effects that modify a rule rather than change the state (extra damage, 破城, 風林火山, 車懸り,
the standing castles') are read by the rule they modify, in ``nb_battle``. Only ``@njit``
kernels; no I/O.
"""

import numpy as np

from lab.games.daitenka.cards.vocab import ON_WIN_GROUP, Condition, Effect, Trigger
from lab.games.daitenka.engine import layout as L
from lab.jit import hot, kernel
from lab.games.daitenka.engine.nb_core import (
    amount_of,
    camp_add,
    camp_remove,
    condition_of,
    down_mask,
    draw_n,
    effect_of,
    flip_all,
    hand_add,
    hand_remove,
    log_ev,
    low_index,
    pb,
    pick_hand_random,
    rand_below,
    repair,
    row_at,
    row_number,
    stat,
    strongest,
    trigger_of,
    up_mask,
    wall_count,
    wall_to_hand,
)

T_ON_DEATH = int(Trigger.ON_DEATH)
E_DRAW = int(Effect.DRAW)
E_REPAIR = int(Effect.REPAIR_WALL)
E_FLIP_STRONGEST = int(Effect.FLIP_STRONGEST)
E_FLIP_ALL = int(Effect.FLIP_ALL)
E_RETURN = int(Effect.RETURN_STRONGEST)
E_STEAL = int(Effect.STEAL_HAND)
E_KILL_HAND = int(Effect.KILL_HAND)
E_KILL_CAMP = int(Effect.KILL_CAMP)
E_SELF_BREAK = int(Effect.SELF_BREAK)
K_NONE = int(Condition.NONE)
K_SINGLE = int(Condition.SINGLE)
K_EXCEPT_SELF = int(Condition.EXCEPT_SELF)
K_DMG3 = int(Condition.DAMAGE_AT_LEAST_3)
K_BROKE2 = int(Condition.BROKE_AT_LEAST_2)

# rules.md R6 step 5 resolves the winner's on-win effects by kind (vocab.ON_WIN_GROUP); -1: not
# in step 5
ON_WIN_GROUP_OF = np.full(max(int(e) for e in Effect) + 1, -1, dtype=np.int64)
for _e, _g in ON_WIN_GROUP.items():
    ON_WIN_GROUP_OF[int(_e)] = _g
N_ON_WIN_GROUPS = max(ON_WIN_GROUP.values()) + 1


@hot
def count_trigger(s, i, r):
    """Count card i's row at ``r`` as having changed the state (the statistics)."""
    stat(s, L.ST_TRIG + row_number(i, r), i, 1)


@hot
def credit(s, lg, p, i, r):
    """Count card i's row at ``r`` as having changed the state, and log it."""
    count_trigger(s, i, r)
    log_ev(s, lg, L.EV_TRIGGER, p, i, row_number(i, r), 0)


@hot
def condition_met(c, r, n):
    """The row's condition, where ``n`` is what the trigger measures: the winning set's size,
    the walls an attack broke, the damage it deals."""
    k = condition_of(c, r)
    if k == K_SINGLE:
        return n == 1
    if k == K_BROKE2:
        return n >= 2
    if k == K_DMG3:
        return n >= 3
    return True


# ------------------------------------------------------------------ deaths
@hot
def kill(s, c, lg, p, i):
    """Card ``i`` (already taken out of its zone) dies into the graveyard of ``p``, who
    controls it; its on-death rows (年貢) run wherever it died (R12)."""
    s[pb(p) + L.PB_GRAVE + i] += 1
    stat(s, L.ST_DIED, i, 1)
    log_ev(s, lg, L.EV_DIE, p, i, 0, 0)
    if c[L.C_FLAGS + i] & L.F_ON_DEATH:
        _on_death(s, c, lg, p, i)


@kernel
def _on_death(s, c, lg, p, i):
    for q in range(L.ROWS_PER_CARD):
        r = row_at(i, q)
        if trigger_of(c, r) == T_ON_DEATH and apply_gentle_effect(s, c, lg, p, i, r):
            credit(s, lg, p, i, r)


@kernel
def kill_hand_random(s, c, lg, p):
    """A uniformly random card of p's hand dies; its local id, or -1 if the hand was empty."""
    i = pick_hand_random(s, c, p)
    if i >= 0:
        hand_remove(s, p, i)
        kill(s, c, lg, p, i)
    return i


@hot
def kill_field(s, c, lg, p):
    """Every card p has on the field dies."""
    b = pb(p)
    m = s[b + L.PB_FIELD_MASK]
    s[b + L.PB_FIELD_MASK] = 0
    while m != 0:
        low = m & -m
        m ^= low
        i = low_index(low)
        while s[b + L.PB_FIELD + i] > 0:
            s[b + L.PB_FIELD + i] -= 1
            kill(s, c, lg, p, i)


# ------------------------------------------------------------------ the interpreter
@kernel
def apply_gentle_effect(s, c, lg, p, i, r):
    """Row ``r`` of card ``i``, for its controller ``p``, among the effects that kill nothing
    (so a death's own rows can run them). True if it changed the state."""
    eff = effect_of(c, r)
    amt = amount_of(c, r)
    changed = False
    if eff == E_DRAW:
        changed = draw_n(s, c, lg, p, amt) > 0
    elif eff == E_REPAIR:
        changed = repair(s, c, lg, p, amt) > 0
    elif eff == E_FLIP_STRONGEST:
        for _ in range(amt):
            f = strongest(s, c, down_mask(s, p))
            if f >= 0:
                camp_remove(s, p, f, False)
                camp_add(s, p, f, True)
                changed = True
    elif eff == E_FLIP_ALL:
        keep = i if condition_of(c, r) == K_EXCEPT_SELF else -1
        changed = flip_all(s, c, p, keep) > 0
    elif eff == E_RETURN:
        for _ in range(amt):
            f = strongest(s, c, up_mask(s, p))
            if f >= 0:
                camp_remove(s, p, f, True)
                hand_add(s, p, f)
                s[pb(1 - p) + L.PB_KNOWN + f] += 1
                changed = True
    elif eff == E_STEAL:
        d = 1 - p
        for _ in range(amt):
            f = pick_hand_random(s, c, d)
            if f >= 0:
                hand_remove(s, d, f)
                stat(s, L.ST_STOLEN, f, 1)
                g = f
                if c[L.C_ORIGIN + f] != p and c[L.C_SAME + f] >= 0:
                    g = c[L.C_SAME + f]  # a steal of one's own card type merges with it
                hand_add(s, p, g)
                s[pb(d) + L.PB_KNOWN + g] += 1  # ruling V1: both players know it
                s[L.G_STEALS + p] += 1
                log_ev(s, lg, L.EV_STEAL, p, g, f, 0)
                changed = True
    elif eff == E_SELF_BREAK:
        # 城割り: own walls into hand, never the castle; not an attack (ruling T3)
        b = pb(p)
        for _ in range(amt):
            k = wall_count(s, p)
            if k == 0:
                break
            s[b + L.PB_WALL_N] = k - 1
            w = s[b + L.PB_WALLS + k - 1]
            wall_to_hand(s, p, w)
            log_ev(s, lg, L.EV_WALL_TO_HAND, p, w, 2, 0)
            changed = True
    return changed


@kernel
def apply_effect(s, c, lg, p, i, r):
    """Row ``r`` of card ``i``, for its controller ``p``: every effect that changes the state.
    True if it did."""
    eff = effect_of(c, r)
    if eff == E_KILL_HAND:
        changed = False
        for _ in range(amount_of(c, r)):
            if kill_hand_random(s, c, lg, 1 - p) >= 0:
                changed = True
        return changed
    if eff == E_KILL_CAMP:
        return _kill_camp(s, c, lg, 1 - p, amount_of(c, r))
    return apply_gentle_effect(s, c, lg, p, i, r)


@kernel
def _kill_camp(s, c, lg, d, amt):
    """謀反: the strongest face-up camp unit of ``d`` dies, else a random face-down one."""
    db = pb(d)
    changed = False
    for _ in range(amt):
        f = strongest(s, c, up_mask(s, d))
        up = True
        if f < 0:
            up = False
            total = 0
            for q in range(c[L.C_NLOC]):
                total += s[db + L.PB_DOWN + q]
            if total > 0:
                rr = rand_below(s, L.G_RNG, total)
                acc = 0
                for q in range(c[L.C_NLOC]):
                    acc += s[db + L.PB_DOWN + q]
                    if rr < acc:
                        f = q
                        break
        if f >= 0:
            camp_remove(s, d, f, up)
            kill(s, c, lg, d, f)
            changed = True
    return changed


@kernel
def fire_rows(s, c, lg, p, i, trigger, n):
    """Run card i's rows with this trigger whose condition ``n`` meets (``condition_met``), for
    its controller p, crediting each that changed the state; True if any did."""
    any_changed = False
    for q in range(L.ROWS_PER_CARD):
        r = row_at(i, q)
        if trigger_of(c, r) == trigger and condition_met(c, r, n):
            if apply_effect(s, c, lg, p, i, r):
                credit(s, lg, p, i, r)
                any_changed = True
    return any_changed
