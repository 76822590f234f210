"""How far does a strong player feel an army's single edits, against the first tier?
`python benchmarks/edit_tiers.py PROPOSAL.toml ARMY [--op strength|amount|off|deck] [--first tuned]
[--strong '{ kind = "search", simulations = 100 }'] [--first-games 600] [--strong-games 50]
[--seed 31338] [--jobs 2]`

`lab balance` predicts a strong tier's army rates from the first tier's plus a correction per edit
(docs/balancing.md, "How the strong tier is predicted"), whose prior expects an edit to move a
strong player's armies as far as the first tier's (docs/balancing.md, "Strength edits a strong
player feels less", measured this way). This measures
it: the proposal's `[[patch]]` (a `lab balance` proposal pasted into a file), and the proposal
with each single edit of ARMY of kind `--op` added (the edits `lab balance` tries: strength ±1/±2,
ability amounts ±1, abilities off, `deck`: its 足軽 swapped for one a step or two away; a card
several decks hold only as ARMY's copies), all played on
ARMY's 16 ordered pairs at both tiers on the same deals. It prints per edit ARMY's win-rate change
from the proposal at each tier, and the least-squares slope of the strong tier's changes on the
first tier's with its standard error (an intercept absorbs the luck of the proposal's own
games, which every change shares). Nothing is asserted: it is a measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd

from lab.design import balance
from lab.games.daitenka.cards.edits import edits_toml
from lab.errors import LabError
from lab.games.daitenka.cards.patch import Patch, parse_patch
from lab.sim import runner
from lab.sim.config import load_experiment
from lab.stats.paired import score_a
from lab.stats.records import load

DEFAULT = Path(__file__).resolve().parent.parent / "configs" / "default.toml"


def proposal(path: Path) -> list:
    """The ``Edit``s of the file's first ``[[patch]]``, checked as `lab run` checks them."""
    table = tomllib.loads(path.read_text(encoding="utf-8"))["patch"][0]
    return list(parse_patch(table, source=str(path)).edits)


def variants(army: str, op: str, base: list) -> dict[str, tuple[str, list]]:
    """name → (the added edit's text, the variant's ``Edit``s); "proposal" adds none. An edit
    the proposal's own edits leave nothing to act on (an amount of an ability it turned off) is
    left out, with a line saying so."""
    exp = load_experiment(DEFAULT)
    decks, pool = {a.key: a.deck() for a in exp.armies}, exp.pool()
    out = {"proposal": ("(the proposal)", base)}
    for m in balance.plan(exp, deck_lists=op == "deck").moves:
        kind = "replace" if op == "deck" else op  # a deck-list edit is a replacement
        if army in m.armies and m.edit.op == kind and (len(m.armies) == 1 or m.edit.army):
            try:
                Patch(f"e{m.index}", tuple(base + [m.edit])).check(decks, None, pool)
            except LabError as e:
                print(f"left out: {m.text} ({e})")
                continue
            out[f"e{m.index}"] = (m.text, base + [m.edit])
    return out


def config_text(name, army, others, bots, games, seed, vs) -> str:
    pairs = ", ".join(f'["{army}", "{o}"], ["{o}", "{army}"]' for o in others)
    head = (
        f'name = "{name}"\nseed = {seed}\ngames = {games}\nrules = "second_edition"\n'
        f"armies = [{pairs}]\nbots = {bots}\nseat_swap = false\n\n"
        f"[grid]\npatch = {json.dumps(list(vs))}\n"
    )
    return head + "".join("\n" + edits_toml(edits, k) for k, (_, edits) in vs.items())


def rates(folder: Path, text: str, army: str, jobs: int) -> pd.Series:
    """ARMY's win rate (draw ½) per variant of the config ``text``, run in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text, encoding="utf-8")
    runner.run(load_experiment(folder / "config.toml"), folder / "out", jobs=jobs)
    g = load(folder / "out", cards=False).games
    g = g[
        ~g["error"].astype(bool)
    ]  # a game that hit an engine limit counts for no one, as in lab balance
    a = score_a(g["winner"].astype(str).to_numpy())
    score = np.where(g["army_a"] == army, a, 1.0 - a)
    return pd.Series(score).groupby(g["patch"].astype(str).to_numpy()).mean()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("proposal", type=Path, help="a TOML file whose first [[patch]] is the proposal")
    ap.add_argument("army", help="the army whose edits are measured (a key: takeda)")
    ap.add_argument("--op", default="strength", choices=["strength", "amount", "off", "deck"])
    ap.add_argument("--first", default='"tuned"', help="the first tier's bots (TOML)")
    ap.add_argument("--strong", default='{ kind = "search", simulations = 100 }')
    ap.add_argument("--first-games", type=int, default=600, help="deals per ordered pair")
    ap.add_argument("--strong-games", type=int, default=50, help="deals per ordered pair")
    ap.add_argument("--seed", type=int, default=31338)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    vs = variants(args.army, args.op, proposal(args.proposal))
    others = [a.key for a in load_experiment(DEFAULT).armies if a.key != args.army]
    root = Path(tempfile.mkdtemp(prefix="lab-bench-edit-tiers-"))
    try:
        got = {}
        for tier, bots, games in (
            ("first", args.first, args.first_games),
            ("strong", args.strong, args.strong_games),
        ):
            text = config_text(tier, args.army, others, bots, games, args.seed, vs)
            got[tier] = 100 * rates(root / tier, text, args.army, args.jobs)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report(got, vs, args)


def report(got: dict, vs: dict, args) -> None:
    first, strong = got["first"], got["strong"]
    n_strong = 16 * args.strong_games
    print(
        f"{args.army}: {args.op} edits added to {args.proposal.name}, 16 ordered pairs; "
        f"first tier {args.first} ({16 * args.first_games} games per edit), strong tier "
        f"{args.strong} ({n_strong} games per edit, ±{196 * np.sqrt(0.25 / n_strong):.1f} points)"
    )
    print(f"  proposal: {first['proposal']:.1f}% / {strong['proposal']:.1f}%")
    rows = [(k, first[k] - first["proposal"], strong[k] - strong["proposal"]) for k in vs]
    rows = [r for r in rows if r[0] != "proposal"]
    for k, df, ds in sorted(rows, key=lambda r: r[1]):
        print(f"  {df:+6.1f} {ds:+6.1f}  {vs[k][0]}")
    x = np.array([r[1] for r in rows])
    y = np.array([r[2] for r in rows])
    if len(rows) >= 3 and x.std() > 0:
        design = np.column_stack([np.ones_like(x), x])
        beta, res, *_ = np.linalg.lstsq(design, y, rcond=None)
        sigma2 = float(((y - design @ beta) ** 2).sum()) / (len(x) - 2)
        se = np.sqrt(sigma2 * np.linalg.inv(design.T @ design)[1, 1])
        print(
            f"strong-tier change per point of first-tier change: {beta[1]:.2f} ± {se:.2f} "
            f"(intercept {beta[0]:+.1f}; {len(x)} edits)"
        )


if __name__ == "__main__":
    main()
