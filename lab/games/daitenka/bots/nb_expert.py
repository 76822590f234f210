"""The expert bot: single-observer information-set Monte Carlo tree search (SO-ISMCTS).

Each iteration re-deals everything the seat cannot see (as the search bot does), then walks one
tree shared by all determinisations: a node is a sequence of decisions taken since the root, by
either player, so the opponent's replies and the seat's own later choices get statistics of their
own instead of being left to the heuristic as in flat search. At a node the decisions legal in
this determinisation are looked up in a (parent, action) hash table; the node widens
progressively — it may have about ``widen × √visits`` children, added in the heuristic's order
of preference, so the tree stays narrow where the heuristic is confident and the huge answer
lists of a full hand never swamp it — and otherwise picks among its legal children by UCB1 over
*availability* counts (how often each child was legal when the node was visited). The new leaf is
played out to the end with the heuristic, and every edge on the path scores the result for the
player who took it. Forced moves (one legal decision) pass through without a node.

Everything lives in the preallocated scratch buffer (``lab.games.daitenka.bots.nb_buffer``): no allocation and no
Python object in the loop. The budget is a number of iterations (same decision on any machine);
an optional time budget stops earlier, measured with the processor's cycle counter (ticks; the
spec's ``time_ms`` is converted once in Python, see ``ticks_per_ms``). Like the search bot it
reads nothing hidden: determinisations are built from the card multiset alone (rules.md R1).
"""

import math
import time

import numba
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from lab.games.daitenka.bots import nb_buffer as B
from lab.games.daitenka.bots.nb_heuristic import heuristic_choose, score_action
from lab.games.daitenka.bots.nb_params import (
    BP_CUTOFF,
    BP_DEPTH,
    BP_SIMS,
    BP_TICKS,
    BP_UCB,
    BP_WIDEN,
)
from lab.games.daitenka.bots.nb_search import (  # a node's value counts wins in thousandths
    PLAYOUT_LIMIT,
    WIN,
    determinise,
    playout_value,
    seed_search_stream,
)
from lab.games.daitenka.engine import layout as L
from lab.jit import hot, kernel
from lab.games.daitenka.engine.nb_actions import legal_actions
from lab.games.daitenka.engine.nb_resolve import apply, begin_turn

ROOT = 0


@intrinsic
def _cycle_counter(typingctx):
    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter"
        )
        return builder.call(fn, [])

    return types.int64(), codegen


if numba.config.DISABLE_JIT:

    def clock_ticks():
        return time.perf_counter_ns()
else:

    @hot
    def clock_ticks():
        return _cycle_counter()


_TICKS_PER_MS = []


def ticks_per_ms() -> float:
    """Clock ticks per millisecond of wall time on this machine (measured once, over 20 ms)."""
    if not _TICKS_PER_MS:
        clock_ticks()
        t0, k0 = time.perf_counter(), clock_ticks()
        time.sleep(0.02)
        t1, k1 = time.perf_counter(), clock_ticks()
        _TICKS_PER_MS.append(max(1.0, (k1 - k0) / ((t1 - t0) * 1000.0)))
    return _TICKS_PER_MS[0]


@hot
def action_key(a, mover):
    """An exact 58-bit code of an action row and who takes it."""
    k = a[L.AX_KIND] | (a[L.AX_N] << 4)
    for j in range(5):
        k |= (a[L.AX_C0 + j] + 1) << (7 + 7 * j)
    return (
        k
        | ((a[L.AX_KURUMAGAKARI] + 1) << 42)
        | (a[L.AX_FIRE] << 49)
        | ((a[L.AX_X] + 1) << 50)
        | (mover << 57)
    )


@hot
def _slot(parent, key):
    # every product stays below 2**63, so the hash is the same compiled or not
    return ((parent * 1000003) ^ (key & 0xFFFFFFFF) ^ ((key >> 32) * 7919)) & (B.HASH_CAP - 1)


@hot
def nd(node, field):
    """Where ``field`` (``nb_buffer.N_*``) of ``node`` lives in the scratch buffer."""
    return B.EX_NODE + node * B.NODE_W + field


@hot
def find_child(sb, parent, key):
    """The child of ``parent`` along the action with this key, or -1."""
    h = _slot(parent, key)
    stamp = sb[B.EX_STAMP]
    while sb[B.EX_HASH + h * B.HASH_W] == stamp:
        e = B.EX_HASH + h * B.HASH_W
        if sb[e + 1] == parent and sb[e + 2] == key:
            return sb[e + 3]
        h = (h + 1) & (B.HASH_CAP - 1)
    return -1


@hot
def add_child(sb, parent, key, mover):
    """A new node under ``parent`` along ``key`` (-1 when the pool is full)."""
    node = sb[B.EX_NODES]
    if node >= B.NODE_CAP:
        return -1
    sb[B.EX_NODES] = node + 1
    h = _slot(parent, key)
    stamp = sb[B.EX_STAMP]
    while sb[B.EX_HASH + h * B.HASH_W] == stamp:
        h = (h + 1) & (B.HASH_CAP - 1)
    e = B.EX_HASH + h * B.HASH_W
    sb[e] = stamp
    sb[e + 1] = parent
    sb[e + 2] = key
    sb[e + 3] = node
    sb[nd(node, B.N_VISITS)] = 0
    sb[nd(node, B.N_VALUE)] = 0
    sb[nd(node, B.N_AVAIL)] = 0
    sb[nd(node, B.N_NCHILD)] = 0
    sb[nd(node, B.N_MOVER)] = mover
    sb[nd(parent, B.N_NCHILD)] += 1
    return node


@kernel
def _tree_step(t, c, sb, sacts, m, node, visits, bot, ucb, widen, may_expand):
    """Index of the legal action (rows ``sacts[:m]``) to take at ``node``; fills the legal
    actions' child ids (-1 where none) and counts their availability. Returns -1 - k when the
    choice is action k with no node yet, which the caller expands."""
    mover = t[L.G_TO_MOVE]
    legal_children = 0
    for k in range(m):
        key = action_key(sacts[k], mover)
        child = find_child(sb, node, key)
        sb[B.EX_LKEY + k] = key
        sb[B.EX_LCHILD + k] = child
        if child >= 0:
            sb[nd(child, B.N_AVAIL)] += 1
            legal_children += 1
    if legal_children == 0:
        return -1 - heuristic_choose(t, c, sacts, m, bot)
    allowed = 1 + int(widen * math.sqrt(visits + 1.0))
    if may_expand and legal_children < m and sb[nd(node, B.N_NCHILD)] < allowed:
        # widen: the heuristic's favourite among the legal actions not yet in the tree
        best_new = -1
        best_new_score = -1.0e300
        for k in range(m):
            if sb[B.EX_LCHILD + k] < 0:
                sc = score_action(t, c, sacts[k], bot)
                if sc > best_new_score:
                    best_new_score = sc
                    best_new = k
        return -1 - best_new
    pick = -1
    best = -1.0e300
    for k in range(m):
        child = sb[B.EX_LCHILD + k]
        if child < 0:
            continue
        v = sb[nd(child, B.N_VISITS)]
        if v == 0:
            return k
        u = sb[nd(child, B.N_VALUE)] / (WIN * v) + ucb * math.sqrt(
            math.log(sb[nd(child, B.N_AVAIL)]) / v
        )
        if u > best:
            best = u
            pick = k
    return pick


@kernel
def _iterate(s, c, lg, wk, bot, sb, sacts, p, ucb, widen):
    """One iteration: determinise, descend the tree adding at most one node, play out, score."""
    t = sb[B.SB_STATE : B.SB_STATE + L.S_SIZE]
    determinise(s, t, c, sb, p)
    node = ROOT
    depth = 0
    in_tree = True
    steps = 0
    while in_tree and t[L.G_PHASE] != L.PH_OVER and steps < PLAYOUT_LIMIT:
        if t[L.G_PHASE] == L.PH_LEADER_START:
            begin_turn(t, c, lg)
        steps += 1
        if bot[BP_DEPTH] > 0 and depth >= bot[BP_DEPTH]:
            break
        m = legal_actions(t, c, sacts, wk)
        if m == 1:
            apply(t, c, lg, sacts[0])
            continue
        visits = sb[nd(node, B.N_VISITS)]
        may_expand = sb[B.EX_NODES] < B.NODE_CAP
        k = _tree_step(t, c, sb, sacts, m, node, visits, bot, ucb, widen, may_expand)
        if k < 0:
            k = -1 - k
            child = -1
            if may_expand:
                child = add_child(sb, node, sb[B.EX_LKEY + k], t[L.G_TO_MOVE])
                if child >= 0:
                    sb[nd(child, B.N_AVAIL)] = 1
            in_tree = False
        else:
            child = sb[B.EX_LCHILD + k]
        if child >= 0 and depth < B.PATH_CAP:
            sb[B.EX_PATH + depth] = child
            depth += 1
            node = child
        else:
            in_tree = False
        apply(t, c, lg, sacts[k])
    # out of the tree: the search's playout, cut at the cutoff-th leader turn; what the
    # iteration is worth to seat A, in thousandths of a win (a finished game: its result)
    r0 = playout_value(t, c, lg, sacts, wk, bot, 0, bot[BP_CUTOFF])
    sb[nd(ROOT, B.N_VISITS)] += 1
    for d in range(depth):
        n = sb[B.EX_PATH + d]
        sb[nd(n, B.N_VISITS)] += 1
        sb[nd(n, B.N_VALUE)] += r0 if sb[nd(n, B.N_MOVER)] == 0 else WIN - r0


@kernel
def expert_choose(s, c, lg, acts, n, wk, bot, sb, sacts):
    """Index of the chosen row among the ``n`` legal actions in ``acts``."""
    p = s[L.G_TO_MOVE]
    if n <= 1:
        return 0
    seed_search_stream(s, sb)
    sb[B.EX_STAMP] += 1
    sb[B.EX_NODES] = 1
    sb[nd(ROOT, B.N_VISITS)] = 0
    sb[nd(ROOT, B.N_NCHILD)] = 0
    sb[nd(ROOT, B.N_MOVER)] = 1 - p
    ucb = bot[BP_UCB] / 100.0
    widen = bot[BP_WIDEN] / 100.0
    budget = bot[BP_TICKS]
    start = clock_ticks() if budget > 0 else 0
    for it in range(bot[BP_SIMS]):
        _iterate(s, c, lg, wk, bot, sb, sacts, p, ucb, widen)
        if budget > 0 and it >= n and clock_ticks() - start > budget:
            break
    best = -1
    best_visits = -1
    best_value = -1
    for k in range(n):
        child = find_child(sb, ROOT, action_key(acts[k], p))
        if child < 0:
            continue
        v = sb[nd(child, B.N_VISITS)]
        if v > best_visits or (v == best_visits and sb[nd(child, B.N_VALUE)] > best_value):
            best = k
            best_visits = v
            best_value = sb[nd(child, B.N_VALUE)]
    if best < 0:
        return heuristic_choose(s, c, acts, n, bot)
    return best
