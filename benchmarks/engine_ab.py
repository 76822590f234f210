"""Bot speed of two or more checkouts, interleaved: is a change faster or slower?

    git worktree add --detach /tmp/old COMMIT     # a checkout of the version to compare with
    python benchmarks/engine_ab.py ROUNDS /tmp/old . [MORE …] [--bot heuristic]

Each checkout plays in its own long-lived process (PYTHONPATH = the checkout; each compiles
into its own cache the first time), all nine armies round robin, 150 random games a pair per
round (``--bot heuristic``: 25 heuristic games); the rounds alternate between checkouts, so the
machine's load drifts over all of them alike. Prints the median and quartiles of the per-round
ratio to the first checkout (process time), then each one's median and best round. On a shared machine single runs vary by a third;
the median ratio of paired rounds is the figure to quote.
"""

import json
import os
import statistics
import subprocess
import sys

args = sys.argv[1:]
bot = "random"
if "--bot" in args:
    k = args.index("--bot")
    bot = args[k + 1]
    del args[k : k + 2]
if len(args) < 3 or bot not in ("random", "heuristic"):
    sys.exit(__doc__)
trees = [os.path.abspath(t) for t in args[1:]]
rounds = int(args[0])
per = 150 if bot == "random" else 25
WORKER = r'''
import sys, time, json
import numpy as np
try:
    from lab.games.daitenka.bots.match import Batch, parse_bot
    from lab.games.daitenka.cards.pool import ARMIES, load_army, load_pool
    from lab.games.daitenka.engine.context import matchup_context
    from lab.games.daitenka.rules import RuleSet
except ModuleNotFoundError:  # a checkout from before 大天下 moved into lab/games/daitenka/
    from lab.bots.match import Batch, parse_bot
    from lab.cards.pool import ARMIES, load_army, load_pool
    from lab.engine.context import matchup_context
    from lab.rules import RuleSet
pool = load_pool(); rules = RuleSet()
armies = [load_army(a, pool) for a in ARMIES]
ctxs = [matchup_context(pool, rules, a, b) for a in armies for b in armies]
batch = Batch(); R = parse_bot(sys.argv[1])
batch.play(ctxs[0], np.ones((1, 12), np.int64), R, R)
print("ready", flush=True)
for line in sys.stdin:
    per = int(line)
    dec = 0; t = time.process_time()
    for k, c in enumerate(ctxs):
        res, _ = batch.play(c, np.random.default_rng(k).integers(1, 2**32, size=(per, 12)), R, R)
        dec += int(res[:, 5].sum())
    dt = time.process_time() - t
    print(json.dumps({"games_s": per * len(ctxs) / dt, "dec_s": dec / dt}), flush=True)
'''
procs = {
    t: subprocess.Popen(
        [sys.executable, "-c", WORKER, bot],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": t},
        cwd=t,  # `python -c` puts the working folder first on sys.path: the checkout's own lab
    )
    for t in trees
}
for t in trees:
    assert procs[t].stdout.readline().strip() == "ready", t
best = {}
allr = {t: [] for t in trees}
for rnd in range(rounds):
    for t in trees:
        procs[t].stdin.write(f"{per}\n")
        procs[t].stdin.flush()
        r = json.loads(procs[t].stdout.readline())
        allr[t].append(r["games_s"])
        if t not in best or r["games_s"] > best[t]["games_s"]:
            best[t] = r
for t in trees[1:]:
    ratios = [b / a for a, b in zip(allr[trees[0]], allr[t])]
    q1, _, q3 = statistics.quantiles(ratios, n=4)
    print(
        f"{t} / {trees[0]}: median ratio {statistics.median(ratios):.3f} "
        f"(quartiles {q1:.3f}–{q3:.3f}, {len(ratios)} rounds)"
    )
for t in trees:
    print(t, "median", round(statistics.median(allr[t])))
    r = best[t]
    print(f"{t:24s} {r['games_s']:10,.0f} games/s {r['dec_s']:12,.0f} decisions/s", flush=True)
