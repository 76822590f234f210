"""The engine's arrays, declared once (architecture.md principle 3; style.md, after pgx).

A game is one int64 array ``s`` (the state), read together with one int64 array ``c`` (the
matchup context: card tables of the two decks plus the packed rule set). Cards are *local ids*:
each player's distinct card types get consecutive ids (A's first), so a local id also says which
deck a card came from. Hands, camps, graveyards and the field are counts per local id; deck, walls
and logistics are stacks of local ids (top = last).

Every field is declared exactly once, in one of the tables below — name, size, meaning — and its
offset follows from its place in the table. From each table come the module-level ints the
kernels read (``G_<NAME>`` for the header, ``PB_<NAME>`` inside a player's block, ``ST_<NAME>``
for a statistics row, ``C_<NAME>`` for the context, ``AX_<NAME>`` in an action row, ``EV_<NAME>``
for an event code), folded by numba into the compiled code as constants, and the read-only
Python view of a game (``lab.games.daitenka.engine.view``). Kernels import this module (``from lab.games.daitenka.engine import
layout as L``) and read ``L.G_PHASE``; nothing outside the engine reads an offset.
"""

from __future__ import annotations

from typing import NamedTuple


class Field(NamedTuple):
    name: str
    size: int
    meaning: str
    offset: int = 0


def _declare(prefix: str, table, start: int = 0) -> tuple[tuple[Field, ...], int]:
    """Offsets for ``table`` from ``start`` (a field's offset is the sum of the sizes before
    it); returns the fields with their offsets and the first offset past the table. Each offset
    is also written out below its table as ``PREFIX_NAME = offset``, a plain int that editors,
    linters and numba see; ``_check_written`` holds the two together at import."""
    at = start
    out = []
    for name, size, meaning in table:
        out.append(Field(name, size, meaning, at))
        at += size
    return tuple(out), at


# ---------------------------------------------------------------- sizes
NL = 64  # local ids (at most 63 used: masks are int64)
INF = 11  # strength code of ∞ (lab.games.daitenka.cards.vocab.INF)
N_STR = 12  # strength codes 0–11 (1–10, INF; 0 = not a unit): rows of the per-strength tables
DECK_CAP = 48
WALL_CAP = 16
LOGI_CAP = 16
SL_CAP = 16  # card types of one strength per player
N_SEED_WORDS = 12  # seat A deal ×4, seat B deal ×4, play ×4

# ---------------------------------------------------------------- codes
PH_LEADER_START = 0  # a leader turn is due; its automatic draw has not happened yet
PH_LEADER = 1  # the leader has drawn; may return (帰陣) or act
PH_LEADER_ACT = 2  # the leader has returned and flipped; must act
PH_RESPONSE = 3
PH_MULLIGAN = 4
PH_OVER = 5

A_RETURN = 1
A_LEAD = 2
A_ANSWER = 3
A_PASS = 4
A_MIOKURI = 5
A_BUILD = 6
A_FORTIFY = 7
A_SIEGE = 8
A_TACTIC = 9
A_LOGISTICS = 10
A_MULLIGAN = 11
A_KEEP = 12
N_ACTION_KINDS = 13

END_NONE = 0
END_CASTLE_FELL = 1
END_EXHAUSTION = 2
END_STALEMATE = 3
END_TURN_LIMIT = 4
END_NAMES = ("", "castle_fell", "exhaustion", "stalemate", "turn_limit")

SHAPE_SAME = 1
SHAPE_RUN = 2
SHAPE_INF = 3

# behaviour counters per seat (bot personas are compared on these): the header field CNT
CNT_MIOKURI = 0
CNT_TACTIC = 1
CNT_INF = 2  # ∞ units put on the field
CNT_FIRE = 3
CNT_SIEGE = 4
CNT_BUILD = 5
CNT_RETURN = 6
N_CNT = 7

# ---------------------------------------------------------------- an action row (one decision)
ACTION, AW = _declare(
    "AX",
    (
        ("KIND", 1, "A_* code"),
        ("N", 1, "cards in the set (or the one card a return, 奇襲 or build names)"),
        ("C0", 5, "the set's local ids in the order written; -1 past N"),
        ("KURUMAGAKARI", 1, "local id of the attached 車懸り, or -1"),
        ("FIRE", 1, "1: the answer fires (鉄砲, R10)"),
        ("X", 1, "the tactic, castle or logistics card of the step, or -1"),
    ),
)
# the offsets of the table above, written out for readers and linters (checked below)
AX_KIND = 0
AX_N = 1
AX_C0 = 2
AX_KURUMAGAKARI = 7
AX_FIRE = 8
AX_X = 9
MAXA = 8192  # rows of the action buffer

# ---------------------------------------------------------------- state: the header
HEADER, _header_end = _declare(
    "G",
    (
        ("PHASE", 1, "what is due: a PH_* code"),
        ("TO_MOVE", 1, "seat whose decision is next (0 = A, 1 = B)"),
        ("LEADER", 1, "who leads the open battle, or takes the next leader turn"),
        ("WINNER", 1, "-1 running, 0 A, 1 B, 2 draw"),
        ("END", 1, "how the game ended: an END_* code"),
        ("TURNS", 1, "leader turns begun"),
        ("BATTLES", 1, "battles opened"),
        ("DECISIONS", 1, "decisions taken (mulligan decisions not counted)"),
        ("STALEMATE", 1, "consecutive forced 見送り (legacy stalemate, R13)"),
        ("TURN_LIMIT", 1, "1 once the max_turns-th leader turn has begun (R13)"),
        ("RNG", 4, "play stream: xoshiro128** words (random effects, bot choices)"),
        ("DRNG", 4, "seat A's deal stream (shuffles, mulligan redraw)"),
        ("DRNG_B", 4, "seat B's deal stream"),
        ("LOG_ON", 1, "1: events are written to the log"),
        ("LOG_N", 1, "events written so far (may exceed the log's rows)"),
        ("FIRST", 1, "who took the first leader turn"),
        ("MULL_NEXT", 1, "next seat that may still decide on a mulligan"),
        ("ERROR", 1, "an internal limit was hit: 1 a stack's capacity, 2 the action buffer"),
        ("OPEN", 1, "1 while a battle is open (the field holds sets)"),
        ("TOP_OWNER", 1, "seat whose set is on top of the field, or -1"),
        ("TOP_N", 1, "cards in the top set"),
        ("TOP_SHAPE", 1, "SHAPE_* of the top set"),
        ("TOP_STR", 1, "highest strength in the top set"),
        ("TOP_CARDS", 5, "local ids of the top set, in the order played"),
        ("TOP_KURUMAGAKARI", 1, "local id of the 車懸り attached to the top set, or -1"),
        ("PLAYS", 2, "sets each seat played in this battle"),
        ("STEALS", 2, "cards each seat stole (card conservation per player)"),
        ("WIN_RECORDED", 2, "battle wins per seat (gun fire is not a win)"),
        ("MAX_DEFICIT", 2, "the most walls each seat was behind by"),
        ("CNT", 2 * N_CNT, "behaviour counters: [seat][CNT_*]"),
    ),
)
# the offsets of the table above, written out for readers and linters (checked below)
G_PHASE = 0
G_TO_MOVE = 1
G_LEADER = 2
G_WINNER = 3
G_END = 4
G_TURNS = 5
G_BATTLES = 6
G_DECISIONS = 7
G_STALEMATE = 8
G_TURN_LIMIT = 9
G_RNG = 10
G_DRNG = 14
G_DRNG_B = 18
G_LOG_ON = 22
G_LOG_N = 23
G_FIRST = 24
G_MULL_NEXT = 25
G_ERROR = 26
G_OPEN = 27
G_TOP_OWNER = 28
G_TOP_N = 29
G_TOP_SHAPE = 30
G_TOP_STR = 31
G_TOP_CARDS = 32
G_TOP_KURUMAGAKARI = 37
G_PLAYS = 38
G_STEALS = 40
G_WIN_RECORDED = 42
G_MAX_DEFICIT = 44
G_CNT = 46
H_SIZE = 64
assert _header_end <= H_SIZE

# ---------------------------------------------------------------- state: one player's block
PLAYER, _player_end = _declare(
    "PB",
    (
        ("HAND", NL, "手札: copies per local id"),
        ("UP", NL, "陣 face up: copies per local id"),
        ("DOWN", NL, "陣 face down (resting): copies per local id"),
        ("GRAVE", NL, "討死: copies per local id"),
        ("FIELD", NL, "場: this player's cards on the field, copies per local id"),
        ("KNOWN", NL, "copies of the opponent's hand this player knows are there (R1)"),
        ("DECK", DECK_CAP, "山札: a stack of local ids, top = last"),
        ("WALLS", WALL_CAP, "城壁: a stack of local ids, 天守 first, top = last"),
        ("LOGI", LOGI_CAP, "兵站: a stack of local ids in placement order"),
        ("HAND_N", 1, "cards in hand"),
        ("HAND_MASK", 1, "bit i: local id i is in hand"),
        ("UP_MASK", 1, "bit i: local id i stands face up in camp"),
        ("DOWN_MASK", 1, "bit i: local id i rests face down in camp"),
        ("DECK_N", 1, "cards in the deck"),
        ("WALL_N", 1, "cards in the wall stack (the home castle not counted)"),
        ("CASTLE", 1, "local id of the home castle in the 天守 slot, or -1"),
        ("CASTLE_DMG", 1, "1: the home castle was damaged (姫路城 held once)"),
        ("LOGI_N", 1, "cards in logistics"),
        ("FIELD_MASK", 1, "bit i: local id i is on this player's field"),
    ),
)
# the offsets of the table above, written out for readers and linters (checked below)
PB_HAND = 0
PB_UP = 64
PB_DOWN = 128
PB_GRAVE = 192
PB_FIELD = 256
PB_KNOWN = 320
PB_DECK = 384
PB_WALLS = 432
PB_LOGI = 448
PB_HAND_N = 464
PB_HAND_MASK = 465
PB_UP_MASK = 466
PB_DOWN_MASK = 467
PB_DECK_N = 468
PB_WALL_N = 469
PB_CASTLE = 470
PB_CASTLE_DMG = 471
PB_LOGI_N = 472
PB_FIELD_MASK = 473
P_SIZE = 480
assert _player_end <= P_SIZE
P0 = H_SIZE
P1 = H_SIZE + P_SIZE

# ---------------------------------------------------------------- state: statistics per local id
ST_BASE = H_SIZE + 2 * P_SIZE  # row r of local id i lives at ST_BASE + r * NL + i
# play reads only the words before the statistics (these are written for the records, never
# read to decide a step): an imagined game copies S_PLAY words, not S_SIZE
S_PLAY = ST_BASE
STATS, N_ST = _declare(
    "ST",
    (
        ("OPENING", 1, "copies in the opening hand"),
        ("DRAWN", 1, "copies drawn from the deck after the opening hand"),
        ("FIRST_DRAW", 1, "leader turn of the first such draw (0 = never)"),
        ("GAINED", 1, "copies that came to hand from the walls (broken, 見送り, 築城 swap)"),
        ("PLAYED", 1, "copies put on the field or used (tactics, castles)"),
        ("WON", 1, "copies in a winning set"),
        ("TRIG", 4, "triggers of ability row 0–3 that changed the state"),
        ("DIED", 1, "copies that died"),
        ("STOLEN", 1, "copies taken by the opponent's 謀聖"),
    ),
)
# the offsets of the table above, written out for readers and linters (checked below)
ST_OPENING = 0
ST_DRAWN = 1
ST_FIRST_DRAW = 2
ST_GAINED = 3
ST_PLAYED = 4
ST_WON = 5
ST_TRIG = 6
ST_DIED = 10
ST_STOLEN = 11
SCRATCH = ST_BASE + N_ST * NL  # set-up's castles set aside while dealing (16 slots)
S_SIZE = SCRATCH + 16

# ---------------------------------------------------------------- the matchup context
CONTEXT, C_SIZE = _declare(
    "C",
    (
        ("NLOC", 1, "local ids in use"),
        ("NLOC_P", 2, "first local id of each player (B's first = A's count)"),
        ("RULES", 16, "the packed rule set (lab.games.daitenka.rules R_* slots)"),
        ("GTYPE", NL, "global card type (pool index) of each local id"),
        ("STR", NL, "strength (1–10, INF = ∞, 0 = not a unit)"),
        ("KIND", NL, "lab.games.daitenka.cards.vocab.Kind"),
        ("ORIGIN", NL, "the player whose deck the card type came from"),
        ("COST", NL, "legacy logistics cost"),
        ("FLAGS", NL, "F_* bits"),
        ("KEY", NL, "strength order for 'the strongest' (ties: first in the card data)"),
        ("SAME", NL, "the other deck's local id of the same card type, or -1"),
        ("ROWS", NL * 16, "ability rows: NL × 4 rows × (trigger, effect, amount, condition)"),
        ("M_STR", N_STR, "masks: units of strength v (1–10, 11 = ∞)"),
        ("M_UNIT", 1, "mask: units"),
        ("M_TACTIC", 1, "mask: tactics"),
        ("M_CASTLE", 1, "mask: castles"),
        ("M_KURUMAGAKARI", 1, "mask: 車懸り-type tactics (attached to a set)"),
        ("M_DECOY", 1, "mask: 影武者-type cards"),
        ("M_LOW", 1, "mask: units of strength ≤ 3 (mulligan)"),
        ("M_SPECIAL", 1, "mask: units that may answer an ∞ (暗殺, 天下布武)"),
        ("M_ASSASSIN", 1, "mask: assassins"),
        ("M_GUN", 1, "mask: units that may fire (鉄砲)"),
        ("SL", 2 * N_STR * SL_CAP, "[seat][strength][k]: local ids of strength v a seat may hold"),
        ("SL_N", 2 * N_STR, "[seat][strength]: how many"),
        ("DECK", 2 * DECK_CAP, "[seat][k]: each seat's deck list (set-up deals from it)"),
        ("DECK_N", 2, "cards in each seat's deck list"),
        ("EXTRA_OPEN", 2, "extra opening-hand cards of each seat (畿内の覇者)"),
    ),
)
# the offsets of the table above, written out for readers and linters (checked below)
C_NLOC = 0
C_NLOC_P = 1
C_RULES = 3
C_GTYPE = 19
C_STR = 83
C_KIND = 147
C_ORIGIN = 211
C_COST = 275
C_FLAGS = 339
C_KEY = 403
C_SAME = 467
C_ROWS = 531
C_M_STR = 1555
C_M_UNIT = 1567
C_M_TACTIC = 1568
C_M_CASTLE = 1569
C_M_KURUMAGAKARI = 1570
C_M_DECOY = 1571
C_M_LOW = 1572
C_M_SPECIAL = 1573
C_M_ASSASSIN = 1574
C_M_GUN = 1575
C_SL = 1576
C_SL_N = 1960
C_DECK = 1984
C_DECK_N = 2080
C_EXTRA_OPEN = 2082
ROW_W = 4  # an ability row: trigger, effect, amount, condition
ROWS_PER_CARD = 4

# card flags (C_FLAGS): what the context builder found among a card's rows
F_UNIT = 1
F_ON_WIN = 2
F_ON_LEAD = 4
F_ON_DEATH = 8
F_GUN = 16
F_ASSASSIN = 32
F_IMMUNE = 64
F_TENKA = 128
F_KURUMAGAKARI = 256
F_DECOY = 512
F_CASTLE = 1024
F_TACTIC = 2048
F_FACEUP = 4096
F_BREAK_GRAVE = 8192

# ---------------------------------------------------------------- the event log
# A log row is (code, player, card, amount, extra). Each code is declared once below with what its
# four other columns mean; "-" = unused (0 or -1). ``player`` is the seat the event happens to
# (0 A, 1 B; 2 = both or nobody), ``card`` a local id.
LW = 5
EVENTS, _n_events = _declare(
    "EV",
    (
        ("TURN", 1, "player: the leader · amount: the leader turn's number"),
        ("DRAW", 1, "player drew card (from the deck) · amount: 1"),
        ("RETURN", 1, "player returned card from camp to hand (帰陣)"),
        ("FLIP", 1, "player's face-down camp units turned face up · amount: how many"),
        (
            "LEAD",
            1,
            "player led card · amount: its place in the set · extra: the set's size "
            "(a place ≥ size is the attached 車懸り)",
        ),
        ("ANSWER", 1, "player answered with card · amount, extra: as LEAD"),
        ("PASS", 1, "player passed"),
        ("MIOKURI", 1, "player passed the lead (見送り) · amount: 1 if no lead was possible"),
        ("BUILD", 1, "player built castle card · amount: the 天守 card sent to hand, or -1"),
        ("LOGISTICS", 1, "player put card into logistics (兵站 action)"),
        ("FORTIFY", 1, "player fortified (総構え) with castle card"),
        ("TACTIC", 1, "player used tactic card · amount: the unit it names, or -1"),
        ("SIEGE", 1, "player besieged (籠城) with castle card"),
        ("FIRE", 1, "player fired (鉄砲) the set headed by card · amount: the set's size"),
        ("WIN", 1, "player won the battle · amount: sets played"),
        ("DAMAGE", 1, "player's attack deals amount damage to the opponent"),
        (
            "BREAK",
            1,
            "player's wall card broke · amount: 1 to the graveyard, 0 to hand · "
            "extra: 1 if it was the home castle",
        ),
        ("DIE", 1, "player's card died (討死)"),
        ("CAMP", 1, "player's card went to camp · amount: 1 face up, 0 face down"),
        ("TRIGGER", 1, "player's card's ability row amount changed the state"),
        ("ASSASSINATE", 1, "player's assassin card answers the ∞ amount"),
        ("DECOY", 1, "player's 影武者 card saves the general amount"),
        ("STEAL", 1, "player took card from the opponent's hand · amount: its id there"),
        ("REPAIR", 1, "player's walls grew by one from the deck"),
        ("HOLD", 1, "player's castle card held once (不焼)"),
        ("END", 1, "player won (2 = draw) · amount: the END_* code"),
        ("MULLIGAN", 1, "player redrew the opening hand"),
        ("KEEP", 1, "player kept the opening hand"),
        (
            "WALL_TO_HAND",
            1,
            "player's wall card went to hand, not by an attack · amount: "
            "0 見送り, 1 見送り of the home castle, 2 城割り",
        ),
        ("STARVE", 1, "player's single card went face down to camp (兵糧攻め)"),
        ("SURPRISE", 1, "player's unit card killed the single amount (奇襲)"),
        ("TENKA", 1, "player's card answers the ∞ with 天下布武 · amount: hand cards it costs"),
        ("LOGI_PAY", 1, "player paid logistics card (it dies)"),
        ("FIELD_CLEARED", 1, "every unit on the field died (殺し間, 火計) · card: the tactic"),
        ("RETREAT", 1, "player's card went face down to camp (gun = retreat)"),
    ),
    start=1,
)
# the offsets of the table above, written out for readers and linters (checked below)
EV_TURN = 1
EV_DRAW = 2
EV_RETURN = 3
EV_FLIP = 4
EV_LEAD = 5
EV_ANSWER = 6
EV_PASS = 7
EV_MIOKURI = 8
EV_BUILD = 9
EV_LOGISTICS = 10
EV_FORTIFY = 11
EV_TACTIC = 12
EV_SIEGE = 13
EV_FIRE = 14
EV_WIN = 15
EV_DAMAGE = 16
EV_BREAK = 17
EV_DIE = 18
EV_CAMP = 19
EV_TRIGGER = 20
EV_ASSASSINATE = 21
EV_DECOY = 22
EV_STEAL = 23
EV_REPAIR = 24
EV_HOLD = 25
EV_END = 26
EV_MULLIGAN = 27
EV_KEEP = 28
EV_WALL_TO_HAND = 29
EV_STARVE = 30
EV_SURPRISE = 31
EV_TENKA = 32
EV_LOGI_PAY = 33
EV_FIELD_CLEARED = 34
EV_RETREAT = 35
N_EVENTS = _n_events


def _check_written() -> None:
    """Every field's written-out constant is its offset in its table (a field inserted or
    resized in a table without its constant being updated fails on import, naming it)."""
    names = globals()
    for prefix, table in (
        ("AX", ACTION),
        ("G", HEADER),
        ("PB", PLAYER),
        ("ST", STATS),
        ("C", CONTEXT),
        ("EV", EVENTS),
    ):
        for f in table:
            const = f"{prefix}_{f.name}"
            if names.get(const) != f.offset:
                raise AssertionError(
                    f"lab/games/daitenka/engine/layout.py: {const} = {names.get(const)}, but "
                    f"the field sits at {f.offset}; write {const} = {f.offset}"
                )


_check_written()


def field_at(table, name: str) -> Field:
    """The field called ``name`` in one of the tables above."""
    for f in table:
        if f.name == name:
            return f
    raise KeyError(name)
