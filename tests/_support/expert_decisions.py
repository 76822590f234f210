"""Print the expert's decisions (tiny budget) and tree sizes for a few positions as JSON: run
compiled and under NUMBA_DISABLE_JIT=1 by tests/test_bots.py, which compares the two."""

import json

import numpy as np

from _support.hidden import positions
from lab.games.daitenka.bots import nb_buffer as B
from lab.games.daitenka.bots import nb_policy
from lab.games.daitenka.bots.match import parse_bot
from lab.games.daitenka.bots.nb_expert import nd
from lab.games.daitenka.engine.layout import AW, MAXA
from lab.games.daitenka.engine.nb_actions import legal_actions

if __name__ == "__main__":
    bot = parse_bot({"kind": "expert", "simulations": 25, "widen": 150}).pack()
    out = []
    for g in positions(count=8, seed=11):
        n = legal_actions(g.s, g.c, g._acts, g._wk)
        sb = np.zeros(B.SB_SIZE, np.int64)
        k = nb_policy.choose(
            g.s, g.c, g.lg, g._acts, n, g._wk, bot, sb, np.zeros((MAXA, AW), np.int64)
        )
        nodes = int(sb[B.EX_NODES])
        out.append([int(k), nodes, [int(sb[nd(x, B.N_VALUE)]) for x in range(nodes)]])
    print(json.dumps(out))
