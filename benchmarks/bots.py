"""Bot strength and speed (issues 5 and 14), as a benchmark — never a timed test.

    python benchmarks/bots.py [--games N] [--sims S]          # issue 5 figures and speed
    python benchmarks/bots.py --expert [--games 324]          # expert vs search(400), search(3000)
    python benchmarks/bots.py --strong [--games 648] [--expert-games 324] [--rank-games 8]
                                       [--rank-expert-games 8]
                                        # the strong bot (issue 29): vs search(400), tuned,
                                        # heuristic and the expert; its speed beside the
                                        # heuristic's; the nine-army ranking vs search(400)'s
                                        # (and the expert's)
    python benchmarks/bots.py --sweep 100,300,1000,3000,10000 [--opponent '{...}'] [--games 324]
    python benchmarks/bots.py --compare '{...}' '{...}' … [--opponent '{...}'] [--games 648] [--seed 77]
                                        # bot specs on the same deals, paired against the first

Win rates count draws as half; every deal is played from both seats over all ordered army pairs,
and the 95% intervals are t intervals over deals (clustered by deal, so they respect the seat
swap). Milliseconds per decision are medians over the decisions of a few games, clocked one
decision at a time from the Python API (a little call overhead included). Speed: heuristic vs
heuristic against random vs random full games per second on one core, best of three runs each,
measured alternately. Prints JSON, and the sweep also as a table.
"""

import argparse
import json
import statistics
import time

import numpy as np

from lab.games.daitenka.bots import nb_policy
from lab.games.daitenka.bots.ladder import deal_points
from lab.games.daitenka.bots.match import Batch, parse_bot
from lab.games.daitenka.bots.nb_search import SB_SIZE
from lab.games.daitenka.cards.pool import load_armies, load_pool
from lab.games.daitenka.engine import nb_actions
from lab.games.daitenka.engine.api import Game
from lab.games.daitenka.engine.context import matchup_context
from lab.games.daitenka.engine.layout import AW, MAXA
from lab.games.daitenka.rules import RuleSet
from lab.stats.intervals import mean_interval

SEARCH_400 = {"kind": "search", "simulations": 400}
SEARCH_3000 = {"kind": "search", "simulations": 3000}


def win_rate(a, b, games, seed):
    """a's score against b with its 95% interval over deals."""
    pts = deal_points(parse_bot(a), parse_bot(b), games, RuleSet(), seed) / 2
    m, lo, hi, n = mean_interval(pts)
    return {
        "a": parse_bot(a).short,
        "b": parse_bot(b).short,
        "win_rate": round(m, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "games": 2 * n,
    }


def decision_ms(spec, games=6):
    """Median milliseconds of one decision of ``spec`` (seat A; seat B plays its last step)."""
    bot = parse_bot(spec).pack()
    sb = np.zeros(SB_SIZE, np.int64)
    sacts = np.zeros((MAXA, AW), np.int64)
    acts = np.zeros((MAXA, AW), np.int64)
    wk = np.zeros(nb_actions.WK_SIZE, np.int64)
    times = []
    armies = [a.key for a in load_armies()]
    for k in range(games):
        g = Game(None, armies[k % 9], armies[(k * 5 + 2) % 9], seed=k)
        while not g.is_over:
            legal = g.legal_actions()
            if g.to_move == "A" and len(legal) > 1:
                s, c, lg = g.kernel_args()
                n = nb_actions.legal_actions(s, c, acts, wk)
                t = time.perf_counter()
                pick = nb_policy.choose(s, c, lg, acts, n, wk, bot, sb, sacts)
                times.append(time.perf_counter() - t)
                g.changed()
                g.step(tuple(int(x) for x in acts[pick]))
            else:
                g.step(legal[0] if len(legal) == 1 else legal[-1])
    return round(statistics.median(times) * 1000, 3), len(times)


def speed(a, b, games=20_000):
    pool = load_pool()
    armies = load_armies(pool)
    ctxs = [matchup_context(pool, RuleSet(), x, y) for x in armies for y in armies]
    per = -(-games // len(ctxs))
    batch = Batch()
    rng = np.random.default_rng(0)
    pa, pb_ = parse_bot(a), parse_bot(b)
    batch.play(ctxs[0], rng.integers(1, 2**32, size=(1, 12)), pa, pb_)
    t = time.perf_counter()
    for c in ctxs:
        batch.play(c, rng.integers(1, 2**32, size=(per, 12)), pa, pb_)
    return per * len(ctxs) / (time.perf_counter() - t)


def speed_ratio(runs=3):
    hh, rr = [], []
    for _ in range(runs):
        hh.append(speed("heuristic", "heuristic"))
        rr.append(speed("random", "random"))
    return {
        "heuristic_games_per_s": round(max(hh)),
        "random_games_per_s": round(max(rr)),
        "heuristic_speed_ratio": round(max(hh) / max(rr), 3),
    }


def army_rates(spec, games_per_pair, seed):
    """Each army's score (draws half) in a round robin of ``spec`` against itself: every
    ordered army pair, ``games_per_pair`` deals each, the same deals for any bot."""
    from lab.games.daitenka.engine.nb_play import RES_WINNER

    pool = load_pool()
    armies = load_armies(pool)
    bot = parse_bot(spec)
    batch = Batch()
    rng = np.random.default_rng(seed)
    pts, n = np.zeros(len(armies)), np.zeros(len(armies))
    for i, x in enumerate(armies):
        for j, y in enumerate(armies):
            seeds = rng.integers(1, 2**32, size=(games_per_pair, 12)).astype(np.int64)
            c = matchup_context(pool, RuleSet(), x, y)
            w = batch.play(c, seeds, bot, bot)[0][:, RES_WINNER]
            a = float(((w == 0) + 0.5 * (w == 2)).sum())
            pts[i] += a
            pts[j] += games_per_pair - a
            n[i] += games_per_pair
            n[j] += games_per_pair
    return {a.name: round(float(p / k), 4) for a, p, k in zip(armies, pts, n)}


def strong_figures(games, expert_games, rank_games, rank_expert_games=0):
    """Issue 29's targets: paired deals, seats swapped, 95% intervals over deals."""
    from scipy.stats import spearmanr

    out = {}
    for name, opp, g, seed in (
        ("vs_search400", SEARCH_400, games, 31),
        ("vs_tuned", "tuned", games, 32),
        ("vs_heuristic", "heuristic", games, 33),
        ("vs_expert", "expert", expert_games, 34),
    ):
        if g:
            t = time.perf_counter()
            out[name] = win_rate("strong", opp, g, seed) | {
                "seconds": round(time.perf_counter() - t)
            }
            print(json.dumps({name: out[name]}), flush=True)
    hs, ss = [], []
    for _ in range(3):  # alternately, best of three: the machine is shared
        hs.append(speed("heuristic", "heuristic", 8_000))
        ss.append(speed("strong", "strong", 8_000))
    out["speed"] = {
        "heuristic_games_per_s": round(max(hs)),
        "strong_games_per_s": round(max(ss)),
        "strong_vs_heuristic": round(max(ss) / max(hs), 3),
    }
    print(json.dumps({"speed": out["speed"]}), flush=True)
    if rank_games:
        t = time.perf_counter()
        strong = army_rates("strong", rank_games, 35)
        t_strong = time.perf_counter() - t
        search = army_rates(SEARCH_400, rank_games, 35)
        t_search = time.perf_counter() - t - t_strong
        names = list(strong)
        rho = spearmanr([strong[k] for k in names], [search[k] for k in names]).statistic
        out["ranking"] = {
            "games_per_pair": rank_games,
            "games_per_tier": 81 * rank_games,
            "strong": strong,
            "search400": search,
            "spearman_rho": round(float(rho), 4),
            "seconds_strong": round(t_strong),
            "seconds_search400": round(t_search),
        }
        print(json.dumps({"ranking": out["ranking"]}, ensure_ascii=False), flush=True)
    if rank_expert_games:
        # the expert's own order, on the same deals (the seed): issue 29 ranks against it
        t = time.perf_counter()
        expert = army_rates("expert", rank_expert_games, 35)
        strong = army_rates("strong", rank_expert_games, 35)
        names = list(expert)
        out["ranking_vs_expert"] = {
            "games_per_pair": rank_expert_games,
            "expert": expert,
            "strong": strong,
            "spearman_rho": round(
                float(spearmanr([strong[k] for k in names], [expert[k] for k in names]).statistic),
                4,
            ),
            "seconds": round(time.perf_counter() - t),
        }
        if rank_games:
            search = out["ranking"]["search400"]
            out["ranking_vs_expert"]["search400_spearman_rho"] = round(
                float(spearmanr([search[k] for k in names], [expert[k] for k in names]).statistic),
                4,
            )
    return out


def compare(specs, opponent, games, seed):
    """Each spec's score against ``opponent`` on the same deals, and its paired difference
    from the first spec's (an interval over deals: the deal luck cancels)."""
    rows, first = [], None
    for spec in specs:
        t = time.perf_counter()
        pts = deal_points(parse_bot(spec), parse_bot(opponent), games, RuleSet(), seed) / 2
        m, lo, hi, n = mean_interval(pts)
        row = {
            "bot": spec,
            "win_rate": round(m, 4),
            "ci95": [round(lo, 4), round(hi, 4)],
            "games": 2 * n,
            "seconds": round(time.perf_counter() - t),
        }
        line = f"{json.dumps(spec):72s} {m:6.1%} [{lo:.1%}, {hi:.1%}] {row['seconds']:>5}s"
        if first is None:
            first = pts
        else:
            dm, dlo, dhi, _ = mean_interval(pts - first)
            row["paired_difference"] = [round(dm, 4), round(dlo, 4), round(dhi, 4)]
            line += f"  {dm:+.1%} [{dlo:+.1%}, {dhi:+.1%}]"
        print(line, flush=True)
        rows.append(row)
    return rows


def sweep(budgets, opponent, games, seed=7):
    rows = []
    for sims in budgets:
        spec = {"kind": "expert", "simulations": sims}
        r = win_rate(spec, opponent, games, seed)  # the same deals for every budget
        ms, _ = decision_ms(spec, games=3)
        rows.append(
            {
                "simulations": sims,
                "win_rate": r["win_rate"],
                "ci95": r["ci95"],
                "games": r["games"],
                "ms_per_decision": ms,
            }
        )
        print(
            f"{sims:>8} {r['win_rate']:>8.1%}  [{r['ci95'][0]:.1%}, {r['ci95'][1]:.1%}]"
            f" {r['games']:>6} {ms:>9.1f}",
            flush=True,
        )
    return rows


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=None)
    ap.add_argument("--search-games", type=int, default=324)
    ap.add_argument("--sims", type=int, default=None)
    ap.add_argument("--expert", action="store_true", help="the expert's targets")
    ap.add_argument("--strong", action="store_true", help="the strong bot's targets (issue 29)")
    ap.add_argument("--expert-games", type=int, default=324, help="--strong: games vs the expert")
    ap.add_argument(
        "--rank-games",
        type=int,
        default=8,
        help="--strong: deals per ordered army pair of the ranking round robins",
    )
    ap.add_argument(
        "--rank-expert-games",
        type=int,
        default=0,
        help="--strong: deals per ordered army pair of the expert's round robin (0: none; "
        "about 2.7 s a game on one core)",
    )
    ap.add_argument("--sweep", default=None, help="expert budgets, e.g. 100,300,1000,3000,10000")
    ap.add_argument("--compare", nargs="+", default=None, help="bot specs (JSON) to compare")
    ap.add_argument("--seed", type=int, default=77, help="the deals of --compare")
    ap.add_argument(
        "--opponent", default=json.dumps(SEARCH_400), help="the opponent of --sweep and --compare"
    )
    a = ap.parse_args()
    if a.compare:
        opp = json.loads(a.opponent)
        print(
            f"against {parse_bot(opp).short}, {a.games or 648} games each (seed {a.seed}); "
            "the last column is the paired difference from the first bot"
        )
        rows = compare([json.loads(x) for x in a.compare], opp, a.games or 648, a.seed)
        print(json.dumps({"opponent": parse_bot(opp).short, "compare": rows}, indent=2))
    elif a.sweep:
        opp = json.loads(a.opponent)
        print(f"expert(simulations) against {parse_bot(opp).short}, {a.games or 324} games each")
        print(f"{'sims':>8} {'win rate':>8}  {'95% interval':<16} {'games':>6} {'ms/dec':>9}")
        rows = sweep([int(x) for x in a.sweep.split(",")], opp, a.games or 324)
        print(json.dumps({"opponent": parse_bot(opp).short, "sweep": rows}, indent=2))
    elif a.strong:
        figures = strong_figures(a.games or 648, a.expert_games, a.rank_games, a.rank_expert_games)
        print(json.dumps(figures, indent=2, ensure_ascii=False))
    elif a.expert:
        games = a.games or 324
        out = {
            "expert_vs_search400": win_rate("expert", SEARCH_400, games, 21),
            "expert_vs_search3000": win_rate("expert", SEARCH_3000, games, 22),
        }
        for spec in ("expert", SEARCH_400, SEARCH_3000):
            out[f"ms_per_decision {parse_bot(spec).short}"] = decision_ms(spec)[0]
        print(json.dumps(out, indent=2))
    else:
        search = SEARCH_400 | ({"simulations": a.sims} if a.sims else {})
        ms, decisions = decision_ms(search)
        print(
            json.dumps(
                {
                    "heuristic_vs_random": win_rate("heuristic", "random", a.games or 1000, 1),
                    "search_vs_heuristic": win_rate(search, "heuristic", a.search_games, 2),
                    "search_decision_ms_median": ms,
                    "search_decisions_timed": decisions,
                    **speed_ratio(),
                },
                indent=2,
            )
        )
