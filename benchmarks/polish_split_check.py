"""Does polishing predict the sets it measures better when it learns from the ones it measured
before (``lab.design.balance_polish.ResidualSplit``)? `python benchmarks/polish_split_check.py
SEARCH_DIR [--seed S] [--config configs/default.toml] [--tiers T,T]`

Replays a finished search's polishing offline (no game is played): for each polishing round
after the first, the set that round measured is predicted from the sets measured before it —
once as polishing predicts now, once with the anchor's residual carried whole, as it did
before — and compared with its judged rates on the polishing deals at the first strong tier.
Prints each round's error (points, RMS over the armies, and the army missed most) and the RMS
and largest error over the rounds (docs/balancing.md, "Polishing learns from its own
measurements"). The surrogate reads every screening game of the finished search, some played
after the round predicted; both predictions read the same ones.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from correction_check import load_search, search_options

from lab.design import balance_search
from lab.design.balance_tiers import polish_block


def errors(search) -> dict[str, list[np.ndarray]]:
    order = [
        tuple(h["polished"][0]) for h in search.history if h.get("phase") == balance_search.POLISH
    ]
    exact = search._surrogate(search.screened_singles())[3]
    out: dict[str, list[np.ndarray]] = {"learning": [], "carried whole": []}
    for r in range(1, len(order)):
        for c in search.cands.values():
            c.polish = c.moves in order[:r]
        anchor = search.polish_best().moves
        nxt = order[r]
        truth = search.judged_rates(nxt, polish_block)[1]
        line = []
        for name, learn in (("learning", True), ("carried whole", False)):
            rates = search.neighbour_figures(anchor, exact(anchor), learn)(nxt, exact(nxt))[0]
            e = 100 * (rates[1] - truth)
            out[name].append(e)
            i = int(np.argmax(np.abs(e)))
            line.append(f"{name} {np.sqrt(np.mean(e**2)):4.1f} ({search.armies[i]} {e[i]:+.1f})")
        print(f"  round {r:2d}: " + "; ".join(line))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("search_dir", type=Path)
    search_options(ap)
    args = ap.parse_args()
    tiers = [args.tiers] if args.tiers else None
    search = load_search(args.search_dir, args.config, args.seed, tiers, 1)
    got = errors(search)
    for name, e in got.items():
        if e:
            e = np.array(e)
            print(
                f"{name}: {np.sqrt(np.mean(e**2)):.2f} points RMS over {len(e)} sets × "
                f"{e.shape[1]} armies, largest {np.abs(e).max():.1f}"
            )


if __name__ == "__main__":
    main()
