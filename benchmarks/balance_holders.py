"""`lab balance` steered by a correction with one shift per edit: `python
benchmarks/balance_holders.py OUT_DIR [--minutes 30] [--seed S] [--config configs/default.toml]`

The default search predicts a strong tier's rates with nine free shifts per edit (one per army),
and steers into the sets whose fitted shifts err in its favour (docs/balancing.md, "The search
steers into the correction's errors"). This runs the same search as `lab balance CONFIG --out
OUT_DIR` but fits one shift per edit on the armies holding the card, each other army moving by
−1/8 of it per holder (`correction_check.one_shift_per_edit`), and prints the best proposal's
`[[patch]]` to paste into a config and play with `lab run` on a new seed. Nothing is asserted:
whether it steers better is decided on new deals (one search on 2026-12-06: "One shift per
edit" in docs/balancing.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from correction_check import one_shift_per_edit

from lab.design import balance, balance_search, balance_tiers
from lab.sim.config import load_experiment


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--config", default="configs/default.toml")
    args = ap.parse_args()
    p = balance.plan(load_experiment(args.config), seed=args.seed)
    fit = balance_tiers.TierCorrection.fit.__func__
    armies: list[str] = []

    def holders_fit(cls, rows, n, prior=balance_tiers.PRIOR, base=None, prior_mean=None):
        if base is None or prior_mean or not rows:  # the first tier's own or a bridged fit
            return fit(cls, rows, n, prior=prior, base=base, prior_mean=prior_mean)
        return one_shift_per_edit(p.moves, armies, rows, base, prior)

    balance_search.TierCorrection.fit = classmethod(holders_fit)
    armies += balance_search.Search(p.exp, p.moves, p.settings, args.out_dir, tiers=p.tiers).armies
    result = balance.run(p, args.out_dir, minutes=args.minutes)
    first = result["proposals"][0] if result["proposals"] else None
    print(first["toml"] if first else "no proposal")


if __name__ == "__main__":
    main()
