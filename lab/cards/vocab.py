"""The closed vocabulary that card abilities are written in (architecture.md principle 2).

Every ability in ``cards.toml`` is a list of rows ``(trigger, effect, amount, condition)``; the
loader turns the names used in the data file into these integer codes and the compiled engine reads
nothing else. A new card built from existing codes needs no engine change; a new code needs one
engine function plus its scenario. This module must stay import-light: the engine imports it.
"""

from __future__ import annotations

from enum import IntEnum


class Kind(IntEnum):
    UNIT = 1  # 兵
    WARLORD = 2  # 武将 (a unit with a unique person)
    GENERAL = 3  # 総大将 (∞ unit, unique, one per deck)
    TACTIC = 4  # 軍略
    CASTLE = 5  # 城


KIND_NAMES = {"unit": Kind.UNIT, "warlord": Kind.WARLORD, "general": Kind.GENERAL,
              "tactic": Kind.TACTIC, "castle": Kind.CASTLE}
KIND_LABELS = {Kind.UNIT: "兵", Kind.WARLORD: "武将", Kind.GENERAL: "総大将",
               Kind.TACTIC: "軍略", Kind.CASTLE: "城"}

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
    WHEEL = 23  # 車懸り
    SIEGE = 24  # 籠城
    HOLD_ONCE = 25  # 姫路城 不焼
    REDUCE_DAMAGE = 26  # 岐阜城 天険
    ODAWARA = 27  # 小田原城 総構え (draw or fortify, per the `odawara` toggle)
    SELF_BREAK = 28  # 犬山城 城割り: break up to `amount` own walls into hand


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


def _names(enum) -> dict[str, IntEnum]:
    return {m.name.lower(): m for m in enum}


TRIGGER_NAMES = _names(Trigger)
EFFECT_NAMES = _names(Effect)
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
RESPONSE_TACTICS = (Effect.WIPE_FIELD_USER_LEADS, Effect.SURPRISE, Effect.REARGUARD,
                    Effect.WIPE_FIELD_ATTACKER_LEADS, Effect.STARVE)
