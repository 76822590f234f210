"""Offsets and codes of the engine's arrays (architecture.md principle 3).

A game is one int64 array ``s`` (the state), read together with one int64 array ``c`` (the
matchup context: card tables of the two decks plus the packed rule set). Cards are *local ids*:
each player's distinct card types get consecutive ids (A's first), so a local id also says which
deck a card came from. Hands, camps, graveyards and the field are counts per local id; deck, walls
and logistics are stacks of local ids (top = last). Everything here is a plain module-level int so
numba folds it into the kernels.
"""

# ---------------------------------------------------------------- sizes
NL = 64  # local ids (at most 63 used: masks are int64)
INF = 11  # strength code of ∞ (lab.cards.vocab.INF)
DECK_CAP = 48
WALL_CAP = 16
LOGI_CAP = 16
SL_CAP = 16  # card types of one strength per player

# ---------------------------------------------------------------- phases and codes
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

# an action row: kind, card count, up to five cards, attached 車懸り (-1), fire flag, extra card
AW = 10
AX_KIND = 0
AX_N = 1
AX_C0 = 2
AX_KUR = 7
AX_FIRE = 8
AX_X = 9
MAXA = 8192

END_NONE = 0
END_CASTLE_FELL = 1
END_EXHAUSTION = 2
END_STALEMATE = 3
END_TURN_LIMIT = 4
END_NAMES = ("", "castle_fell", "exhaustion", "stalemate", "turn_limit")

SHAPE_SAME = 1
SHAPE_RUN = 2
SHAPE_INF = 3

# ---------------------------------------------------------------- state header
G_PHASE = 0
G_TO_MOVE = 1
G_LEADER = 2  # who leads the open battle, or takes the next leader turn
G_WINNER = 3  # -1 running, 0 A, 1 B, 2 draw
G_END = 4
G_TURNS = 5  # leader turns begun
G_BATTLES = 6
G_DECISIONS = 7
G_STALEMATE = 8  # consecutive forced 見送り (legacy stalemate)
G_TURN_LIMIT = 9  # the max_turns-th leader turn has begun
G_RNG = 10  # 4 words: play stream (xoshiro128**)
G_DRNG = 14  # 4 words: seat A's deal stream (shuffles, mulligan redraw, random first player)
G_LOG_ON = 18
G_LOG_N = 19
G_FIRST = 20  # who took the first leader turn
G_MULL_NEXT = 21  # next seat that may still decide on a mulligan
G_ERROR = 22  # set when an internal limit is hit (action buffer, stack capacity)
G_OPEN = 23  # a battle is open (the field holds sets)
G_TOP_OWNER = 24
G_TOP_N = 25
G_TOP_SHAPE = 26
G_TOP_STR = 27
G_TOP_CARDS = 28  # 5 slots
G_TOP_KUR = 33  # local id of the 車懸り attached to the top set, or -1
G_PLAYS = 34  # 2 slots: sets each player played in this battle
G_STEALS = 36  # 2 slots: cards each player stole (conservation check)
G_LAST_MIOKURI_FORCED = 38
G_WIN_RECORDED = 39  # battle wins (not fire) per player: 2 slots
G_MIN_WALLS = 41  # 2 slots: fewest walls each player had (comeback statistics)
G_MAX_DEFICIT = 43  # 2 slots: the most walls each player was behind by
G_DRNG_B = 45  # 4 words: seat B's deal stream
N_SEED_WORDS = 12  # seat A deal ×4, seat B deal ×4, play ×4
G_CNT = 50  # [2][N_CNT] behaviour counters per seat (bot personas are compared on these)
CNT_MIOKURI = 0
CNT_TACTIC = 1
CNT_INF = 2  # ∞ units put on the field
CNT_FIRE = 3
CNT_SIEGE = 4
CNT_BUILD = 5
CNT_RETURN = 6
N_CNT = 7
H_SIZE = 64

# ---------------------------------------------------------------- per-player block
PB_HAND = 0
PB_UP = 64
PB_DOWN = 128
PB_GRAVE = 192
PB_FIELD = 256
PB_KNOWN = 320  # cards of the opponent's hand this player knows are there
PB_DECK = 384
PB_WALLS = PB_DECK + DECK_CAP
PB_LOGI = PB_WALLS + WALL_CAP
PB_HAND_N = PB_LOGI + LOGI_CAP
PB_HAND_MASK = PB_HAND_N + 1
PB_UP_MASK = PB_HAND_N + 2
PB_DOWN_MASK = PB_HAND_N + 3
PB_DECK_N = PB_HAND_N + 4
PB_WALL_N = PB_HAND_N + 5
PB_CASTLE = PB_HAND_N + 6  # local id of the home castle, or -1
PB_CASTLE_DMG = PB_HAND_N + 7
PB_LOGI_N = PB_HAND_N + 8
PB_FIELD_MASK = PB_HAND_N + 9
P_SIZE = 480

P0 = H_SIZE
P1 = H_SIZE + P_SIZE

# ---------------------------------------------------------------- statistics (per local id)
ST_BASE = H_SIZE + 2 * P_SIZE
ST_OPENING = 0  # copies in the opening hand
ST_DRAWN = 1  # copies drawn from the deck after the opening hand
ST_FIRST_DRAW = 2  # leader turn of the first such draw (0 = never)
ST_GAINED = 3  # copies that came to hand from the walls (broken, 見送り, 築城 swap)
ST_PLAYED = 4  # copies put on the field or used (tactics, castles)
ST_WON = 5  # copies in a winning set
ST_TRIG = 6  # 4 slots: triggers of effect row 0–3 that changed the state
ST_DIED = 10
ST_STOLEN = 11  # copies taken by the opponent's 謀聖
N_ST = 12
SCRATCH = ST_BASE + N_ST * NL  # set-up's castles set aside while dealing
S_SIZE = SCRATCH + 16

# ---------------------------------------------------------------- context
C_NLOC = 0
C_NLOC_P = 1  # 2 slots: first local id of each player; C_NLOC_P+1 = B's first id
C_RULES = 8  # 16 slots (lab.rules.N_RULES ≤ 16)
C_GTYPE = 32
C_STR = C_GTYPE + NL
C_KIND = C_STR + NL
C_ORIGIN = C_KIND + NL
C_COST = C_ORIGIN + NL
C_FLAGS = C_COST + NL
C_KEY = C_FLAGS + NL  # strength order for "the strongest" (ties: first in the card data)
C_SAME = C_KEY + NL  # the other deck's local id of the same card type, or -1
C_ROWS = C_SAME + NL  # NL × 4 rows × (trigger, effect, amount, condition)
C_M_STR = C_ROWS + NL * 16  # 12 masks: cards of strength v (1–10, 11 = ∞)
C_M_UNIT = C_M_STR + 12
C_M_TACTIC = C_M_UNIT + 1
C_M_CASTLE = C_M_UNIT + 2
C_M_KURUMA = C_M_UNIT + 3
C_M_DECOY = C_M_UNIT + 4
C_M_LOW = C_M_UNIT + 5  # units of strength ≤ 3 (mulligan)
C_M_SPECIAL = C_M_UNIT + 6  # units that may answer an ∞ (暗殺, 天下布武)
C_M_ASSASSIN = C_M_UNIT + 7
C_M_GUN = C_M_UNIT + 8  # units that may fire (鉄砲)
C_SL = C_M_UNIT + 9  # [2][12][SL_CAP] local ids of strength v a player may hold
C_SL_N = C_SL + 2 * 12 * SL_CAP
C_DECK = C_SL_N + 24  # [2][DECK_CAP] each player's deck list (set-up)
C_DECK_N = C_DECK + 2 * DECK_CAP
C_EXTRA_OPEN = C_DECK_N + 2
C_SIZE = C_EXTRA_OPEN + 2

# card flags
F_UNIT = 1
F_ON_WIN = 2
F_ON_LEAD = 4
F_ON_DEATH = 8
F_GUN = 16
F_ASSASSIN = 32
F_IMMUNE = 64
F_TENKA = 128
F_KURUMA = 256
F_DECOY = 512
F_CASTLE = 1024
F_TACTIC = 2048
F_FACEUP = 4096
F_BREAK_GRAVE = 8192

# ---------------------------------------------------------------- event log rows
LW = 5  # code, player, card, amount, extra
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
