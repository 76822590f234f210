"""The closed vocabulary that card abilities are written in (architecture.md principle 2).

Every ability in ``cards.toml`` is a list of rows ``(trigger, effect, amount, condition)``; the
loader turns the names used in the data file into these integer codes and the compiled engine reads
nothing else. A new card built from existing codes needs no engine change; a new code needs one
engine function plus its scenario. This module must stay import-light: the engine imports it.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple


class Kind(IntEnum):
    UNIT = 1  # 兵
    WARLORD = 2  # 武将 (a unit with a unique person)
    GENERAL = 3  # 総大将 (∞ unit, unique, one per deck)
    TACTIC = 4  # 軍略
    CASTLE = 5  # 城


KIND_NAMES = {
    "unit": Kind.UNIT,
    "warlord": Kind.WARLORD,
    "general": Kind.GENERAL,
    "tactic": Kind.TACTIC,
    "castle": Kind.CASTLE,
}
KIND_LABELS = {
    Kind.UNIT: "兵",
    Kind.WARLORD: "武将",
    Kind.GENERAL: "総大将",
    Kind.TACTIC: "軍略",
    Kind.CASTLE: "城",
}

# Strength codes: 1–10 as printed, INF for ∞; 0 for cards that are not units.
INF = 11
# ∞ counts as 10 for the legacy logistics limit and for deck strength totals (rules.md R5, cards.md).
INF_AS_NUMBER = 10


class Trigger(IntEnum):
    ON_WIN = 1  # the winner's final set holds the card (R12)
    ON_LEAD = 2  # its set is led onto an empty field (海運)
    ON_DEATH = 3  # the card dies anywhere (年貢)
    ON_BUILD = 4  # the castle is built (犬山城, 大坂城, 郡山城)
    STANDING = 5  # while the castle stands as home castle
    ON_ATTACKED = 6  # after an attack on the walls of the castle's owner, while it stands (墨俣)
    RESPONSE = 7  # used in answer to the top set (tactics, 籠城, 暗殺, 天下布武, 鉄砲)
    SETUP = 8  # at set-up (畿内の覇者)
    PASSIVE = 9  # always on (毘沙門天)
    AUTOMATIC = 10  # from hand, without a decision (影武者)
    ATTACHED = 11  # attached to one's own set (車懸り)


class Effect(IntEnum):
    DRAW = 1
    EXTRA_DAMAGE = 2
    WALLS_TO_GRAVE = 3  # 破城: walls broken by this set die instead of going to hand
    REPAIR_WALL = 4  # push deck top cards onto the own wall stack (amount = how many at most)
    FLIP_STRONGEST = 5  # the strongest own face-down camp unit turns face up
    FLIP_ALL = 6  # all own face-down camp units turn face up
    WIN_SET_FACE_UP = 7  # the winning set goes to camp face up (not ∞)
    RETURN_STRONGEST = 8  # the strongest own face-up camp unit returns to hand
    KILL_HAND = 9  # random opponent hand cards die
    KILL_CAMP = 10  # the strongest face-up opponent camp unit dies (else a random face-down one)
    STEAL_HAND = 11  # take random opponent hand cards into one's own hand
    ASSASSIN = 12  # 暗殺 (R8)
    ASSASSIN_IMMUNE = 13  # 毘沙門天
    TENKA_FUBU = 14  # answer an opponent's ∞ at the cost of `amount` other hand cards (R12)
    GUN = 15  # 鉄砲 fire (R10)
    EXTRA_OPENING = 16  # draw `amount` more opening-hand cards
    DECOY = 17  # 影武者 (R8)
    WIPE_FIELD_USER_LEADS = 18  # 殺し間
    SURPRISE = 19  # 奇襲
    REARGUARD = 20  # 殿軍: the attacker wins, damage −amount (floor 0)
    WIPE_FIELD_ATTACKER_LEADS = 21  # 火計
    STARVE = 22  # 兵糧攻め
    KURUMAGAKARI = 23  # 車懸り: the winning set it is attached to goes to camp face up
    SIEGE = 24  # 籠城
    HOLD_ONCE = 25  # 姫路城 不焼
    REDUCE_DAMAGE = 26  # 岐阜城 天険
    ODAWARA = 27  # 小田原城 総構え: what it does is the `odawara` toggle's (resolved below)
    SELF_BREAK = 28  # 犬山城 城割り: break up to `amount` own walls into hand
    # 総構え as the matchup context holds it once the `odawara` toggle is applied (not written
    # in card data): draw `amount` per own wall an attack breaks into hand, or the leader action
    # that pays `amount` logistics cards for one wall (rules.md R4, R11)
    ODAWARA_DRAW = 29
    ODAWARA_FORTIFY = 30


class Condition(IntEnum):
    NONE = 0
    SINGLE = 1  # the winning set is this card alone (単騎)
    EXCEPT_SELF = 2  # the effect leaves the card itself alone (武田信玄)
    VS_NUMBERED_SINGLE = 3
    VS_SINGLE = 4  # a single, ∞ included
    VS_SET_2PLUS = 5
    VS_SET_3PLUS = 6
    VS_INF = 7  # the top set is an opponent's ∞
    VS_ANY = 8
    DAMAGE_AT_LEAST_3 = 9
    BROKE_AT_LEAST_2 = 10


def _names(enum, internal=()) -> dict[str, IntEnum]:
    return {m.name.lower(): m for m in enum if m not in internal}


TRIGGER_NAMES = _names(Trigger)
EFFECT_NAMES = _names(Effect, internal=(Effect.ODAWARA_DRAW, Effect.ODAWARA_FORTIFY))
CONDITION_NAMES = _names(Condition)

# The kinds of on-win effects resolve in this order (rules.md R6 step 5); within a kind, in the
# order the cards stand in the set. Effects not listed here do not resolve in step 5.
ON_WIN_GROUP = {
    Effect.REPAIR_WALL: 0,
    Effect.FLIP_STRONGEST: 1,
    Effect.FLIP_ALL: 1,
    Effect.RETURN_STRONGEST: 2,
    Effect.KILL_HAND: 3,
    Effect.KILL_CAMP: 3,
    Effect.STEAL_HAND: 4,
    Effect.DRAW: 5,
}
N_ON_WIN_GROUPS = 6

# Tactics whose effect is chosen as a response, with the top-set shape each one may answer.
RESPONSE_TACTICS = (
    Effect.WIPE_FIELD_USER_LEADS,
    Effect.SURPRISE,
    Effect.REARGUARD,
    Effect.WIPE_FIELD_ATTACKER_LEADS,
    Effect.STARVE,
)


# ---------------------------------------------------------------- what the engine runs
# Every (trigger, effect) a card row may carry, the kinds of card it works on and the conditions
# it understands. ``lab.games.daitenka.cards.pool`` refuses any other row when a card file loads, so a card the
# engine would silently ignore never loads. Effects that change the state go through one
# interpreter (``lab.games.daitenka.engine.nb_effects``); the others are read by the rule that uses them (named
# in the comment).
UNIT, TACTIC, CASTLE = (
    "unit",
    "tactic",
    "castle",
)  # kind classes of lab.games.daitenka.cards.pool.Card
ANY_KIND = frozenset((UNIT, TACTIC, CASTLE))

# effects the interpreter runs for any trigger that has a controller; none of them kills a card
GENTLE_EFFECTS = (
    Effect.DRAW,
    Effect.REPAIR_WALL,
    Effect.FLIP_STRONGEST,
    Effect.FLIP_ALL,
    Effect.RETURN_STRONGEST,
    Effect.STEAL_HAND,
)
# ... and these kill: an on-death row may not carry them (a death would set off deaths)
STATE_EFFECTS = GENTLE_EFFECTS + (Effect.KILL_HAND, Effect.KILL_CAMP)
VS_SHAPES = (
    Condition.VS_NUMBERED_SINGLE,
    Condition.VS_SINGLE,
    Condition.VS_SET_2PLUS,
    Condition.VS_SET_3PLUS,
    Condition.VS_INF,
    Condition.VS_ANY,
)


class Support(NamedTuple):
    kinds: frozenset[str]
    conditions: tuple[Condition, ...]


FLIPS = (Effect.FLIP_STRONGEST, Effect.FLIP_ALL)


def _state(kinds, *conditions, without=()):
    return {
        e: Support(
            frozenset(kinds),
            (Condition.NONE,)
            + conditions
            + ((Condition.EXCEPT_SELF,) if e == Effect.FLIP_ALL else ()),
        )
        for e in STATE_EFFECTS
        if e not in without
    }


_U, _T, _C = frozenset((UNIT,)), frozenset((TACTIC,)), frozenset((CASTLE,))
SUPPORT: dict[Trigger, dict[Effect, Support]] = {
    Trigger.ON_WIN: {
        **_state(_U, Condition.SINGLE),
        # R6 step 2 (damage) and step 4 (where the set goes) read these
        Effect.EXTRA_DAMAGE: Support(_U, (Condition.NONE, Condition.SINGLE)),
        Effect.WALLS_TO_GRAVE: Support(_U, (Condition.NONE,)),
        Effect.WIN_SET_FACE_UP: Support(_U, (Condition.NONE,)),
    },
    # a leader's camp has just turned face up (R4 step 3): a flip on lead could never act
    Trigger.ON_LEAD: _state(_U, without=FLIPS),
    Trigger.ON_DEATH: {e: s for e, s in _state(ANY_KIND).items() if e in GENTLE_EFFECTS},
    # likewise on build, but 郡山城 carries flip_all there: it loads and is reported dead (L3)
    Trigger.ON_BUILD: {
        **_state(_C, without=(Effect.FLIP_STRONGEST,)),
        Effect.SELF_BREAK: Support(_C, (Condition.NONE,)),
    },
    Trigger.ON_ATTACKED: _state(_C, Condition.BROKE_AT_LEAST_2),
    # R6 step 2 and R11 read these while the castle stands
    Trigger.STANDING: {
        Effect.HOLD_ONCE: Support(_C, (Condition.NONE,)),
        Effect.REDUCE_DAMAGE: Support(_C, (Condition.NONE, Condition.DAMAGE_AT_LEAST_3)),
        Effect.ODAWARA: Support(_C, (Condition.NONE,)),
    },
    # the legal answers (R7–R11) read these
    Trigger.RESPONSE: {
        Effect.WIPE_FIELD_USER_LEADS: Support(_T, VS_SHAPES),
        Effect.WIPE_FIELD_ATTACKER_LEADS: Support(_T, VS_SHAPES),
        Effect.REARGUARD: Support(_T, VS_SHAPES),
        Effect.SURPRISE: Support(_T, (Condition.VS_NUMBERED_SINGLE,)),
        Effect.STARVE: Support(_T, (Condition.VS_SINGLE, Condition.VS_NUMBERED_SINGLE)),
        Effect.SIEGE: Support(_C, VS_SHAPES),
        Effect.ASSASSIN: Support(_U, (Condition.VS_INF,)),
        Effect.TENKA_FUBU: Support(_U, (Condition.VS_INF,)),
        Effect.GUN: Support(_U, (Condition.NONE,)),
    },
    Trigger.SETUP: {Effect.EXTRA_OPENING: Support(ANY_KIND, (Condition.NONE,))},
    Trigger.PASSIVE: {Effect.ASSASSIN_IMMUNE: Support(_U, (Condition.NONE,))},
    Trigger.AUTOMATIC: {Effect.DECOY: Support(ANY_KIND - {CASTLE}, (Condition.NONE,))},
    Trigger.ATTACHED: {Effect.KURUMAGAKARI: Support(_T, (Condition.NONE,))},
}


def unsupported(
    kind_class: str, trigger: Trigger, effect: Effect, condition: Condition
) -> str | None:
    """Why the engine cannot run this row on a card of ``kind_class``, or None if it can."""
    by_effect = SUPPORT.get(trigger, {})
    what = f"trigger {trigger.name.lower()} × effect {effect.name.lower()}"
    if effect not in by_effect:
        names = ", ".join(e.name.lower() for e in by_effect) or "none"
        return f"{what} is not supported; effects with trigger {trigger.name.lower()}: {names}"
    sup = by_effect[effect]
    if kind_class not in sup.kinds:
        return f"{what} works only on a {' or '.join(sorted(sup.kinds))}, not on a {kind_class}"
    if condition not in sup.conditions:
        names = ", ".join(c.name.lower() for c in sup.conditions)
        return (
            f"{what} with condition {condition.name.lower()} is not supported; "
            f"conditions it takes: {names}"
        )
    return None
