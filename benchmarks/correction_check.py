"""How well did a finished search's strong-tier correction predict the sets it chose?
`python benchmarks/correction_check.py SEARCH_DIR [--config configs/default.toml] [--seed S]
[--tiers T,T]`

`lab balance` predicts a set's rates at a strong tier from the first tier's with a correction
(`TierCorrection`, docs/balancing.md "How the strong tier is predicted"): a base shift per army
and, per edit, nine shifts (one per army) fitted on the sets screened at both tiers. The search
then steers by those predictions, so the sets it selects and polishes are partly those whose
fitted shifts err in its favour. This measures that: on every set played at both tiers on the
selection, polishing or fresh deals (deals the correction never saw), the strong − first tier
difference against what each model predicts from the screening — per army, the mean miss (a
sign that repeats over the sets is the search exploiting the model) and the rms. Models:

- the search's own correction (as fitted at the end of the search);
- the base shift alone;
- the base shift + `SLOPE` × the set's first-tier change (a strong player feels an edit less:
  the strong tier moved about 0.7 as far as `tuned` in docs/balancing.md's comparisons);
- one shift per edit on the armies holding the card, each other army moving by −1/8 of it per
  holder (an edit moves an army's games against its eight opponents), ridge-shrunk like the
  correction's: one number per edit where the correction fits nine.
- the correction with a strength edit's shift expected, before the strong tier's games, to be
  `STRENGTH_SLOPE` times its own first-tier change (screened alone), an ability edit's 0.

The sets were chosen with the first model, so its misses are inflated by that choice and the
others' are not; a model is better for the search only if a search steered by it ends closer
on new deals. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import numpy as np

from lab.design import balance, balance_search, balance_tiers
from lab.design.balance_tiers import fresh_block, polish_block, screen_block, select_block
from lab.sim.config import load_experiment

SLOPE = -0.3  # strong − first-tier change per point of first-tier change
# a strength edit's expected shift, per point of its own first-tier change (docs/balancing.md,
# "Strength edits a strong player feels less")
STRENGTH_SLOPE = -0.4


def search_options(ap: argparse.ArgumentParser) -> None:
    """The options naming how a finished search was run (``lab balance CONFIG [--seed]
    [--tiers]``), which the benchmarks reading one need to load it."""
    ap.add_argument("--config", default="configs/default.toml")
    ap.add_argument("--seed", type=int, default=None, help="the search's --seed, if any")
    ap.add_argument("--tiers", default=None, help="the search's --tiers, if any")


def load_search(src: Path, config: str, seed, tiers, jobs=None) -> balance_search.Search:
    """The finished search in ``src``, as ``lab balance CONFIG [--seed] [--tiers]`` ran it —
    without a calibration tier or with search(400) as one (the default), centring or not (a
    search from before centring)."""
    for calibrate, centre in itertools.product((None, "search"), (True, False)):
        p = balance.plan(
            load_experiment(config), seed=seed, tiers=tiers, calibrate=calibrate, centre=centre
        )
        s = balance_search.Search(
            p.exp,
            p.moves,
            p.settings,
            src,
            tiers=p.tiers,
            bridge=p.bridge,
            calibration=p.calibration,
            centring=p.centring,
            jobs=jobs,
        )
        if not (src / balance_search.STATE).is_file():
            sys.exit(f"{src}: no balance search there (state.json)")
        data = json.loads((src / balance_search.STATE).read_text(encoding="utf-8"))
        if data.get("fingerprint") == s.fingerprint:
            s.load()
            return s
    sys.exit(f"{src}: a balance search of another config, --seed or --tiers")


def fitted_rows(s: balance_search.Search):
    """The rows and base shift the search's correction of its first strong tier was fitted on."""
    got = {}
    fit = balance_tiers.TierCorrection.fit.__func__

    def spy(cls, rows, armies, **kw):
        got.update(rows=rows, base=kw.get("base"))
        return fit(cls, rows, armies, **kw)

    balance_search.TierCorrection.fit = classmethod(spy)
    try:
        s._corrections = None
        correction = s.corrections()[0]
    finally:
        balance_search.TierCorrection.fit = classmethod(fit)
    return correction, got["rows"], np.asarray(got["base"], dtype=float)


def rates(s, moves, blocks) -> np.ndarray:
    sums, counts = s.army_data(moves, blocks)
    return np.array([x.sum() / n.sum() for x, n in zip(sums, counts)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("search_dir", type=Path)
    search_options(ap)
    args = ap.parse_args()
    s = load_search(args.search_dir, args.config, args.seed, [args.tiers] if args.tiers else None)
    correction, rows, base = fitted_rows(s)
    screens = [screen_block(0, k) for k in range(s.settings.levels)]

    as_written = [rates(s, (), screens[:k]) if k else None for k in range(len(screens) + 1)]

    def first_change(moves) -> np.ndarray | None:
        cand = s.cands.get(balance_search.rkey(moves))
        if cand is None or cand.level < 1:
            return None
        return rates(s, moves, screens[: cand.level]) - as_written[cand.level]

    tests = []
    for c in s.cands.values():
        change = first_change(c.moves) if c.moves else None
        for block in (select_block, polish_block, fresh_block):
            if change is None:
                continue
            try:  # measured there at both tiers, or not at all
                shift = rates(s, c.moves, [block(1)]) - rates(s, c.moves, [block(0)])
            except KeyError:
                continue
            tests.append((c.moves, change, shift))
    train = [(m, d, n) for m, d, n in rows if first_change(m) is not None]
    print(
        f"{args.search_dir}: {len(train)} sets fitted on, {len(tests)} measured on deals of their own"
    )
    names = " ".join(f"{a[:5]:>6s}" for a in s.armies)
    print(f"  {'model':34s} {'rms':>5s} {'worst':>6s}  mean miss per army: {names}")

    def show(label, predict):
        miss = 100 * np.array([shift - predict(m, ch) for m, ch, shift in tests])
        rms = np.sqrt((miss**2).mean(axis=0))
        per_army = " ".join(f"{x:+6.1f}" for x in miss.mean(axis=0))
        print(f"  {label:34s} {np.sqrt((miss**2).mean()):5.2f} {rms.max():6.2f}  {per_army}")

    show("the search's correction", lambda m, ch: correction.of(m))
    show("base shift alone", lambda m, ch: base)
    show(f"base + {SLOPE:+.1f} × first-tier change", lambda m, ch: base + SLOPE * ch)
    owned = one_shift_per_edit(s.moves, s.armies, train, base)
    show("one shift per edit (its holders)", lambda m, ch: owned.of(m))
    singles = {m[0]: first_change(m) for m in (c.moves for c in s.cands.values()) if len(m) == 1}
    strength = {
        e: STRENGTH_SLOPE * d
        for e, d in singles.items()
        if d is not None and s.moves[e].edit.op == "strength"
    }
    felt = balance_tiers.TierCorrection.fit(rows, len(s.armies), base=base, prior_mean=strength)
    show(f"strength edits {STRENGTH_SLOPE:+.1f} × own change", lambda m, ch: felt.of(m))


def one_shift_per_edit(moves, armies, rows, base, prior: float = balance_tiers.PRIOR):
    """A ``TierCorrection`` with one shift per edit: +δ on each army holding the card, −δ·holders/8
    on each other army, δ ridge-shrunk towards 0 (±``prior``) as the correction's shifts are.
    ``moves``: the search's edit catalogue; ``rows``: (edit set, strong − first-tier difference
    beyond the base shift, games) as the correction is fitted on."""
    armies = list(armies)

    def pattern(e) -> np.ndarray:
        holders = moves[e].armies & set(armies)
        other = -len(holders) / (len(armies) - 1)
        return np.array([1.0 if a in holders else other for a in armies])

    edits = sorted({i for m, _, _ in rows for i in m})
    col = {e: k for k, e in enumerate(edits)}
    shape = {e: pattern(e) for e in edits}
    a = np.eye(len(edits)) * 0.25 / prior**2
    b = np.zeros(len(edits))
    for edit_set, diff, games in rows:
        x = np.zeros((len(armies), len(edits)))
        for i in edit_set:
            x[:, col[i]] = shape[i]
        a += games * x.T @ x
        b += games * x.T @ np.asarray(diff, dtype=float)
    delta = np.linalg.solve(a, b) if edits else np.zeros(0)
    shifts = {e: delta[col[e]] * shape[e] for e in edits}
    return balance_tiers.TierCorrection(np.asarray(base, dtype=float), shifts)


if __name__ == "__main__":
    main()
