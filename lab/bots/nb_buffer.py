"""Layout of the compiled bots' scratch buffer ``sb`` (one int64 array per worker, reused for
every decision): the search bot's region (a state copy, its generator, root statistics, the
hidden-card pool), then the expert's tree (node statistics and the (parent, action) → child hash
table). Only constants; the kernels that use them are ``nb_search`` and ``nb_expert``.
"""

from lab.engine.layout import MAXA, S_SIZE

# ---------------------------------------------------------------- search (and expert) scratch
MAX_ROOT = 512
SB_STATE = 0
SB_RNG = S_SIZE  # 4 words: the search's own generator
SB_VISITS = SB_RNG + 4
SB_VALUE = SB_VISITS + MAX_ROOT
SB_POOL = SB_VALUE + MAX_ROOT  # hidden cards of one player, by type
SEARCH_END = SB_POOL + 128

# ---------------------------------------------------------------- expert tree
NODE_CAP = 1 << 15  # nodes of one decision's tree; past it iterations stop adding nodes
HASH_CAP = 1 << 16  # slots of the child table (power of two, at least 2 × NODE_CAP)
PATH_CAP = 512  # nodes on one iteration's path
EX_STAMP = SEARCH_END  # decision counter: a hash slot is live only if it carries the current one
EX_NODES = EX_STAMP + 1
EX_VISITS = EX_NODES + 1  # [NODE_CAP] times the node's edge was taken
EX_VALUE = EX_VISITS + NODE_CAP  # [NODE_CAP] half-points won by the edge's mover (win 2, draw 1)
EX_AVAIL = EX_VALUE + NODE_CAP  # [NODE_CAP] times the edge was legal when its parent was visited
EX_NCHILD = EX_AVAIL + NODE_CAP  # [NODE_CAP] children created under the node
EX_MOVER = EX_NCHILD + NODE_CAP  # [NODE_CAP] who takes the node's edge
EX_H_STAMP = EX_MOVER + NODE_CAP  # [HASH_CAP]
EX_H_PARENT = EX_H_STAMP + HASH_CAP
EX_H_KEY = EX_H_PARENT + HASH_CAP
EX_H_CHILD = EX_H_KEY + HASH_CAP
EX_PATH = EX_H_CHILD + HASH_CAP  # [PATH_CAP]
EX_LKEY = EX_PATH + PATH_CAP  # [MAXA] keys of the legal actions at the current node
EX_LCHILD = EX_LKEY + MAXA  # [MAXA] their child nodes (-1: not yet in the tree)
SB_SIZE = EX_LCHILD + MAXA
