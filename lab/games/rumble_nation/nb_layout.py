"""Index layout of Rumble Nation's compiled arrays: the context ``c`` (rules and map, fixed for a
game), the state ``s`` (one game), the result row and the bot spec. Constants only — the kernels
fold them in, so this file is part of the compiled-cache hash (its name starts with ``nb_``).

Areas are stored by **slot** = token number − 2 (slot 0 holds token 2, slot 10 token 12): the pair
sum names a slot directly and the war phase walks slots 0…10, so neither needs a lookup. Which map
area a slot is (``S_AREA``) and the slot-to-slot adjacency (``S_ADJ``) are filled in at set-up from
the token deal. Per-seat fields are blocks of ``MAXP`` words; seat p of slot t is ``t * MAXP + p``.
"""

MAXP = 4  # most seats
NA = 11  # areas = large castle tokens 2…12 (RN1)
NACT = 8  # legal-action buffer: reroll + 3 splits × (with / without daimyo)

# ------------------------------------------------------------------ context c (int64[C_SIZE])
#  C_PLAYERS        seats in play (2–4)
#  C_REROLL         1: one reroll of all three dice per turn (RN3.1)
#  C_COUNT+0…2      soldiers placed for a single die of 1–2 / 3–4 / 5–6 (RN3.3)
#  C_REINF          reinforcement meeples per adjacent area (RN4.3)
#  C_SECOND         1: the runner-up takes the small token (RN4.2)
#  C_DAIMYO         1: advanced rule, one daimyo meeple per seat (RN6)
#  C_SOLDIERS       soldiers per seat at set-up (RN1)
#  C_AREA_ADJ+a     bit mask of the areas adjacent to map area a (RN1 order)
C_PLAYERS = 0
C_REROLL = 1
C_COUNT = 2
C_REINF = 5
C_SECOND = 6
C_DAIMYO = 7
C_SOLDIERS = 8
C_AREA_ADJ = 9
C_SIZE = C_AREA_ADJ + NA

# ------------------------------------------------------------------ state s (int64[S_SIZE])
#  S_DICE_RNG+0…3   the dice generator (xoshiro128** words): every roll, nothing else
#  S_BOT_RNG+0…3    the bots' generator: random choices, search seeds
#  S_PHASE          PH_PLACE or PH_OVER (the war phase runs inside the last placement)
#  S_STAGE          ST_ROLL (dice due) or ST_CHOOSE (dice on the table, a decision due)
#  S_TO_MOVE        seat whose turn it is
#  S_FIRST          start player (RN2)
#  S_REROLLED       1 once this turn's reroll is spent
#  S_DIE+0…2        the three dice on the table (0 while due)
#  S_NEXT_CHIP      the biggest sword chip still on the table (N … 1, 0 = none left)
#  S_TURNS          placement turns played (all seats)
#  S_ROLLS          rolls made, rerolls included
#  S_DECISIONS      decisions taken (placements and rerolls)
#  S_WINNER         winning seat after the war phase, -1 before
#  S_NRESOLVED      areas the war phase has gone through (set-aside ones included)
#  S_AREA+t         map area (RN1 order) holding token t+2
#  S_SLOT+a         slot of map area a (the inverse of S_AREA)
#  S_ADJ+t          bit mask of the slots adjacent to slot t
#  S_LARGE+t        seat that took token t+2, -1 = nobody (set aside or not resolved yet)
#  S_SMALL+t        seat that took the small token of slot t, -1 = nobody
#  S_ORDER+k        slot resolved k-th in the war phase
#  S_MEN+t*MAXP+p   seat p's soldiers in slot t (the daimyo not included)
#  S_REINF+t*MAXP+p reinforcement meeples seat p received in slot t
#  S_P+f*MAXP+p     per-seat field f (P_* below)
S_DICE_RNG = 0
S_BOT_RNG = 4
S_PHASE = 8
S_STAGE = 9
S_TO_MOVE = 10
S_FIRST = 11
S_REROLLED = 12
S_DIE = 13
S_NEXT_CHIP = 16
S_TURNS = 17
S_ROLLS = 18
S_DECISIONS = 19
S_WINNER = 20
S_NRESOLVED = 21
S_AREA = 24
S_SLOT = S_AREA + NA
S_ADJ = S_SLOT + NA
S_LARGE = S_ADJ + NA
S_SMALL = S_LARGE + NA
S_ORDER = S_SMALL + NA
S_MEN = S_ORDER + NA
S_REINF = S_MEN + NA * MAXP
S_P = S_REINF + NA * MAXP

# per-seat fields: s[S_P + f * MAXP + p]
P_STOCK = 0  # soldiers in stock
P_DSTOCK = 1  # 1 while the daimyo is in stock
P_DAIMYO = 2  # slot where the daimyo stands, -1 = not placed
P_CHIP = 3  # sword chip held (swords), 0 = none yet
P_SCORE = 4
P_RANK = 5  # 1 = winner, after the war phase
P_REROLLS = 6
P_TURNS = 7  # placement turns
P_PLACED = 8  # meeples placed (daimyo included)
P_TOTAL = 9  # meeples at set-up (stock + daimyo + on the map): the conservation reference
P_LARGE_N = 10
P_SMALL_N = 11
P_REINF_N = 12  # reinforcement meeples received
N_PF = 13
S_SIZE = S_P + N_PF * MAXP

PH_PLACE = 0
PH_OVER = 1
ST_ROLL = 0
ST_CHOOSE = 1

# ------------------------------------------------------------------ actions (one int each)
# 0 = reroll; a placement is 1 + daimyo + 2 * (single − 1) + 12 * (pair sum − 2)
A_REROLL = 0

# ------------------------------------------------------------------ result row (int32[N_RES])
R_FIRST = 0
R_WINNER = 1
R_TURNS = 2
R_ROLLS = 3
R_DECISIONS = 4
R_SEAT = 5  # per-seat block of RS_* fields, MAXP each: R_SEAT + f * MAXP + p
RS_SCORE = 0
RS_RANK = 1
RS_CHIP = 2
RS_REROLLS = 3
RS_TURNS = 4
RS_LARGE = 5
RS_SMALL = 6
RS_DAIMYO = 7  # token number where the daimyo stood, 0 = none
RS_REINF = 8
N_RS = 9
R_TOKEN = R_SEAT + N_RS * MAXP  # per-token block of RT_* fields, NA each: R_TOKEN + f * NA + t
RT_AREA = 0  # map area holding the token
RT_LARGE = 1  # seat that took it, -1 = set aside
RT_SMALL = 2  # seat that took its small token, -1 = nobody
RT_PRESENT = 3  # seats with meeples there at the war phase
RT_POWER = 4  # the winner's power
N_RT = 5
N_RES = R_TOKEN + N_RT * NA

# ------------------------------------------------------------------ bot spec (int64[BP_SIZE])
BOT_RANDOM = 0
BOT_HEURISTIC = 1
BOT_SEARCH = 2
BP_KIND = 0
BP_LOOKAHEAD = 1  # heuristic: 1 = weigh a reroll by its expected best placement
BP_UNCERTAIN = 2  # heuristic: margin uncertainty per √(meeples still in stock), ×100
BP_REROLL_EDGE = 3  # heuristic: reroll only when it is expected to gain this much, ×100
BP_SIMS = 4  # search: playouts per legal action
BP_PLAYOUT_LOOKAHEAD = 5  # search: 1 = playouts use the reroll lookahead too
BP_SIZE = 8
