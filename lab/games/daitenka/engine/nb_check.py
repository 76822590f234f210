"""Invariants checked after every step in debug runs (never in the fast path).

``invariant_error`` returns 0 when the state is sound, else a code naming the first broken
invariant (see ``INVARIANTS``). ``play_random_checked`` plays random games checking after every
step and counts the kinds of action taken and the end reasons reached, for the conformance test.
"""

from lab.jit import kernel
from lab.games.daitenka.engine import layout as L
from lab.games.daitenka.engine.nb_actions import legal_actions
from lab.games.daitenka.engine.nb_pick import count_steps, nth_step
from lab.games.daitenka.engine.nb_core import pb, rand_below, wall_total
from lab.games.daitenka.engine.nb_play import setup
from lab.games.daitenka.engine.nb_resolve import apply, begin_turn
from lab.games.daitenka.rules import R_MAX_TURNS, R_WALLS

INVARIANTS = {
    1: "a zone count is negative",
    2: "a player's cards do not add up (card conservation, steals included)",
    3: "the cards of both players do not add up",
    4: "walls outside [0, start]",
    5: "the field is malformed (open battle without a proper top set, or cards left outside one)",
    6: "the player to move has no legal action",
    7: "a zone mask disagrees with its counts",
    8: "a finished game changed",
    9: "an internal limit was hit (action buffer or stack capacity)",
    10: "the random bot's counted pick disagrees with legal_actions (count or step order)",
}


@kernel
def player_cards(s, c, p):
    b = pb(p)
    n = 0
    for i in range(c[L.C_NLOC]):
        n += (
            s[b + L.PB_HAND + i]
            + s[b + L.PB_UP + i]
            + s[b + L.PB_DOWN + i]
            + s[b + L.PB_GRAVE + i]
            + s[b + L.PB_FIELD + i]
        )
    n += s[b + L.PB_DECK_N] + s[b + L.PB_WALL_N] + s[b + L.PB_LOGI_N]
    if s[b + L.PB_CASTLE] >= 0:
        n += 1
    return n


@kernel
def _mask_ok(s, c, base, mask_at):
    m = 0
    for i in range(c[L.C_NLOC]):
        if s[base + i] > 0:
            m |= 1 << i
    return m == s[mask_at]


@kernel
def invariant_error(s, c, total0, total1, acts, wk):
    if s[L.G_ERROR] != 0:
        return 9
    for p in range(2):
        b = pb(p)
        for i in range(c[L.C_NLOC]):
            for z in (L.PB_HAND, L.PB_UP, L.PB_DOWN, L.PB_GRAVE, L.PB_FIELD, L.PB_KNOWN):
                if s[b + z + i] < 0:
                    return 1
        for z in (L.PB_HAND_N, L.PB_DECK_N, L.PB_WALL_N, L.PB_LOGI_N):
            if s[b + z] < 0:
                return 1
        if not (
            _mask_ok(s, c, b + L.PB_HAND, b + L.PB_HAND_MASK)
            and _mask_ok(s, c, b + L.PB_UP, b + L.PB_UP_MASK)
            and _mask_ok(s, c, b + L.PB_DOWN, b + L.PB_DOWN_MASK)
            and _mask_ok(s, c, b + L.PB_FIELD, b + L.PB_FIELD_MASK)
        ):
            return 7
        hn = 0
        for i in range(c[L.C_NLOC]):
            hn += s[b + L.PB_HAND + i]
        if hn != s[b + L.PB_HAND_N]:
            return 7
        if wall_total(s, p) > c[L.C_RULES + R_WALLS]:
            return 4
    d0 = s[L.G_STEALS] - s[L.G_STEALS + 1]
    if player_cards(s, c, 0) != total0 + d0 or player_cards(s, c, 1) != total1 - d0:
        return 2
    if player_cards(s, c, 0) + player_cards(s, c, 1) != total0 + total1:
        return 3
    field = 0
    for p in range(2):
        for i in range(c[L.C_NLOC]):
            field += s[pb(p) + L.PB_FIELD + i]
    if s[L.G_OPEN] != 0:
        tn = s[L.G_TOP_N]
        o = s[L.G_TOP_OWNER]
        if tn < 1 or tn > 5 or o < 0 or o > 1 or field < tn:
            return 5
        for j in range(tn):
            if s[pb(o) + L.PB_FIELD + s[L.G_TOP_CARDS + j]] <= 0:
                return 5
    elif s[L.G_PHASE] != L.PH_OVER and field != 0:
        return 5
    if s[L.G_PHASE] != L.PH_OVER and s[L.G_PHASE] != L.PH_LEADER_START:
        if legal_actions(s, c, acts, wk) == 0:
            return 6
    return 0


@kernel
def pick_agrees(s, c, acts, n, wk):
    """Does nb_pick count the same ``n`` steps as the listed ``acts[:n]`` and produce each of
    them at its index? (The second half of the buffer is its scratch.)"""
    if n > L.MAXA // 2:
        return True
    mine = acts[L.MAXA // 2 :]
    if count_steps(s, c, mine, wk) != n:
        return False
    for k in range(n):
        nth_step(s, c, mine, wk, k)
        for x in range(L.AW):
            if mine[0, x] != acts[k, x]:
                return False
    return True


@kernel
def play_random_checked(
    s, c, lg, acts, wk, seeds, max_turn_override, kinds, ends, errors, fired, special
):
    """Random games with every invariant checked after every step. ``kinds[k]`` counts actions
    of kind k, ``ends[r]`` end reasons, ``fired`` 鉄砲 fire, ``special`` assassinations
    and 天下布武; ``errors[g]`` holds the first violation of game g (0 = none)."""
    preset_turns = c[L.C_RULES + R_MAX_TURNS]
    for g in range(seeds.shape[0]):
        turns = max_turn_override[g]
        c[L.C_RULES + R_MAX_TURNS] = turns if turns > 0 else preset_turns
        setup(s, c, lg, seeds[g])
        t0 = player_cards(s, c, 0)
        t1 = player_cards(s, c, 1)
        err = invariant_error(s, c, t0, t1, acts, wk)
        while err == 0 and s[L.G_PHASE] != L.PH_OVER:
            if s[L.G_PHASE] == L.PH_LEADER_START:
                begin_turn(s, c, lg)
                err = invariant_error(s, c, t0, t1, acts, wk)
                if err != 0:
                    break
            n = legal_actions(s, c, acts, wk)
            if n == 0:
                err = 6
                break
            if not pick_agrees(s, c, acts, n, wk):
                err = 10
                break
            k = rand_below(s, L.G_RNG, n)
            kind = acts[k, L.AX_KIND]
            kinds[kind] += 1
            if kind == L.A_ANSWER:
                if acts[k, L.AX_FIRE] != 0:
                    fired[0] += 1
                if s[L.G_TOP_SHAPE] == L.SHAPE_INF:
                    special[0] += 1
            apply(s, c, lg, acts[k])
            err = invariant_error(s, c, t0, t1, acts, wk)
        if err == 0:
            snapshot = s[L.G_WINNER] * 100 + s[L.G_END] * 10 + s[L.G_PHASE]
            if legal_actions(s, c, acts, wk) != 0 or snapshot != (
                s[L.G_WINNER] * 100 + s[L.G_END] * 10 + s[L.G_PHASE]
            ):
                err = 8
        errors[g] = err
        ends[s[L.G_END]] += 1
    c[L.C_RULES + R_MAX_TURNS] = preset_turns
