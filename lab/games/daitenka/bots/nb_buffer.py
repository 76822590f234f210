"""Layout of the compiled bots' scratch buffer ``sb`` (one int64 array per worker, reused for
every decision): the search bot's region (a state copy, its generator, root statistics, the
hidden-card pool), the strong bot's (both heuristics' scores, its weights, its policy scores and
its lookahead's candidates and imagined world), then the expert's tree (node statistics and the
(parent, action) → child hash table). Only constants; the kernels that use them are
``nb_search``, ``nb_strong``, ``nb_lookahead`` and ``nb_expert``.
"""

from lab.games.daitenka.engine.layout import MAXA, S_SIZE

# ---------------------------------------------------------------- search (and expert) scratch
MAX_ROOT = 512
SB_STATE = 0
SB_RNG = S_SIZE  # 4 words: the search's own generator
SB_VISITS = SB_RNG + 4
SB_VALUE = SB_VISITS + MAX_ROOT
SB_POOL = SB_VALUE + MAX_ROOT  # hidden cards of one player, by type
SEARCH_END = SB_POOL + 128

# ---------------------------------------------------------------- strong bot and its lookahead
SB_H = SEARCH_END  # [MAXA] float64: the balanced heuristic's score of each legal step
SB_HT = SB_H + MAXA  # [MAXA] float64: the tuned heuristic's
SB_WF = SB_HT + MAXA  # [N_WF] float64: the policy's weights of one decision (bot spec ÷ 10⁵)
N_WF = 256
SB_Z = SB_WF + N_WF  # [MAXA] policy scores ×10⁶ of the legal steps
MAX_CAND = 8
SB_CAND = SB_Z + MAXA  # [MAX_CAND] the steps tried, best policy score first
SB_CAND_SUM = SB_CAND + MAX_CAND  # [MAX_CAND] their worth summed over the imagined worlds
SB_WORLD = SB_CAND_SUM + MAX_CAND  # [S_SIZE] one imagined world, copied for every step tried
LOOK_END = SB_WORLD + S_SIZE

# ---------------------------------------------------------------- expert tree
NODE_CAP = 1 << 15  # nodes of one decision's tree; past it iterations stop adding nodes
HASH_CAP = 1 << 16  # slots of the child table (power of two, at least 2 × NODE_CAP)
PATH_CAP = 512  # nodes on one iteration's path
EX_STAMP = LOOK_END  # decision counter: a hash slot is live only if it carries the current one
EX_NODES = EX_STAMP + 1
# node records, one cache line each: [visits, value, availability, children, mover]
EX_NODE = EX_NODES + 1
NODE_W = 5
N_VISITS = 0  # times the node's edge was taken
N_VALUE = 1  # half-points won by the edge's mover (win 2, draw 1)
N_AVAIL = 2  # times the edge was legal when its parent was visited
N_NCHILD = 3  # children created under the node
N_MOVER = 4  # who takes the node's edge
# child table slots, [stamp, parent, action key, child]
EX_HASH = EX_NODE + NODE_CAP * NODE_W
HASH_W = 4
EX_PATH = EX_HASH + HASH_CAP * HASH_W  # [PATH_CAP]
EX_LKEY = EX_PATH + PATH_CAP  # [MAXA] keys of the legal actions at the current node
EX_LCHILD = EX_LKEY + MAXA  # [MAXA] their child nodes (-1: not yet in the tree)
SB_SIZE = EX_LCHILD + MAXA
