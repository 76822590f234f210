"""Would the polishing have done better with more strong deals, more neighbours measured a
round, or one edit at a time only? Replays a finished search's. `python
benchmarks/polish_replay.py SEARCH_DIR OUT_DIR [--strong-deals 2] [--first-deals 4]
[--measured 1] [--rounds 8] [--pair-adds 40] [--score shortfall] [--strong-rows worst]
[--gap POINTS] [--spread POINTS] [--probe N] [--config configs/default.toml] [--seed S]
[--tiers T,T] [--calibrate BOT] [--uncalibrated] [--calibrate-on every] [--max-edits N]
[--anchor-rank 1] [--jobs 2]`

`lab balance` polishes its best selected set on deals of its own, the strong tier on
`POLISH_STRONG` times its fresh deals (lab/design/balance_search.py). This copies a finished
search (SEARCH_DIR, written by `lab balance … --out SEARCH_DIR`; `--seed`/`--tiers` as that
search was run) to OUT_DIR, forgets every round from its first polishing one on (their games,
the first tier's screening of single edits and neighbours too, and the edit sets first played
in them; the search's own screening and selection stay, so the replay starts from the same best
selected set and, with the search's settings, walks its polishing's path again:
`tests/test_polish_replay.py`), and polishes it again for
`--rounds` rounds with `--strong-deals` instead (and `--measured` neighbours measured at every
tier a round, `POLISH_MEASURED`, instead of one; `--pair-adds 0`: no two-edit neighbours, as
polishing was before "Two edits at a time"; `--gap 4`: each army's tier gap beyond 4 points
charged, `--probe 2`: probes first, "Charging the tier gap"; `--spread 1`: every judged error
widened by a point, `--first-deals 12`: three times the first tier's polishing deals,
`--max-edits 12`, `--uncalibrated`: no calibrated row, "A margin, more `tuned` deals, no
calibration"; `--calibrate-on anchor`: the offset measured on the anchor alone, "One calibration
for every polished set"). It prints each polished set's worst army per tier on the polishing
deals and the best set's `[[patch]]`, to paste into a config and play with `lab run` on a new
seed (docs/balancing.md, "More strong polishing deals", did this for three searches). The patch
is also written to OUT_DIR/polished.toml (the copied search's balance.json is removed: it holds
the original's proposals). Nothing is asserted: whether a replay is better is decided on new
deals.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
from pathlib import Path

import pandas as pd
from correction_check import load_search, search_options

from lab.design import balance_defaults, balance_search, card_design
from lab.design.balance_tiers import polish_block, screen_block
from lab.sim.config import load_experiment

PATCH = "polished.toml"  # the replay's best set, as a `[[patch]]` to paste or to check
FORGOTTEN_PHASES = (
    balance_search.POLISH,
    balance_search.POLISH_PROBES_PHASE,
    balance_search.POLISH_SCREEN,
    balance_search.POLISH_SINGLES_PHASE,
    balance_search.POLISH_CENTRE_PHASE,
    "fresh deals",
)


# polishing's settings a replay may change: (option, balance_search's constant, given in points
# where the constant is a rate, argparse's options); each defaults to lab balance's own
KNOBS = (
    (
        "--strong-deals",
        "POLISH_STRONG",
        False,
        dict(type=int, help="POLISH_STRONG of the replay (default: as lab balance polishes)"),
    ),
    (
        "--first-deals",
        "POLISH_FIRST",
        False,
        dict(type=int, help="POLISH_FIRST: the first tier's polishing deals, in fresh deals"),
    ),
    (
        "--measured",
        "POLISH_MEASURED",
        False,
        dict(type=int, help="POLISH_MEASURED: neighbours measured a round"),
    ),
    (
        "--pair-adds",
        "POLISH_PAIR_ADDS",
        False,
        dict(
            type=int,
            help="POLISH_PAIR_ADDS: edits two-edit neighbours may add (0: one edit a round only)",
        ),
    ),
    (
        "--score",
        "POLISH_SCORE",
        False,
        dict(
            choices=("shortfall", "chance"),
            help="POLISH_SCORE: what polishing minimises (chance: as before 2026-12-07)",
        ),
    ),
    (
        "--strong-rows",
        "POLISH_STRONG_ROWS",
        False,
        dict(
            choices=("worst", "sum"),
            help="POLISH_STRONG_ROWS: an army's strong rows in the score (sum: as before 2026-12-07)",
        ),
    ),
    (
        "--gap",
        "POLISH_GAP",
        True,
        dict(
            type=float,
            help="POLISH_GAP in points: charge each army's tier gap beyond it (default: not charged)",
        ),
    ),
    (
        "--spread",
        "POLISH_SPREAD",
        True,
        dict(
            type=float, help="POLISH_SPREAD in points: widen every judged error in the score by it"
        ),
    ),
    (
        "--calibrate-on",
        "POLISH_CALIBRATE",
        False,
        dict(
            choices=("every", "anchor"),
            help="POLISH_CALIBRATE: the calibration tier plays every polished set, its offset "
            "pooled (every), or the anchor alone (anchor: as before 2026-12-07, evening)",
        ),
    ),
)


def rolled_back(src: Path, out: Path, config: str, seed, tiers, jobs) -> balance_search.Search:
    """The search in ``src`` copied to ``out`` as it stood before its polishing
    (``forget_polishing``)."""
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(src, out)
    # the original's proposals, not the replay's: `proposal_check.py OUT_DIR` would play them
    (out / "balance.json").unlink(missing_ok=True)
    search = load_search(out, config, seed, tiers, jobs)
    forget_polishing(search)
    return search


def forget_polishing(search: balance_search.Search) -> None:
    """``search`` (loaded from its folder) as it stood before its polishing: every round from
    the first polishing one on forgotten — its games at every tier (the first tier's screening
    of single edits and neighbours too, else a replay's surrogate would know from its first
    round what the original learnt on its way), the edit sets first played in them, racing's
    drops and the screening levels they gave — and their records removed from the folder."""
    rounds = [h["round"] for h in search.history if h.get("phase") in FORGOTTEN_PHASES]
    if not rounds:
        return
    first = min(rounds)
    kept = [h for h in search.history if h["round"] < first]
    if any(h.get("phase") not in FORGOTTEN_PHASES for h in search.history[len(kept) :]):
        raise SystemExit(f"{search.out}: a search round after its polishing began; cannot replay")
    for path in sorted((search.out / balance_search.UNITS).glob("round-*.parquet")):
        if int(path.stem.split("-")[1]) >= first:
            table = pd.read_parquet(path, columns=["block", "pair", "key"])
            for block, pair, key in zip(table["block"], table["pair"], table["key"]):
                search.units.pop((int(block), int(pair), key), None)
            path.unlink()
    search.cands = {k: c for k, c in search.cands.items() if c.born < first}
    for c in search.cands.values():
        c.polish = c.fresh = False
        if c.dropped >= first:
            c.dropped = -1
        c.level = min(c.level, screened_levels(search, c.moves))
    search.history, search.round = kept, first
    search._confirmed.clear()  # no figure read so far may hold a forgotten game
    search._corrections = None


def screened_levels(search: balance_search.Search, moves) -> int:
    """How many of the first tier's screening blocks the edit set has on every pair."""
    level = 0
    while level < search.settings.levels and all(
        (screen_block(0, level), j, search.restrict(moves, j)) in search.units
        for j in range(len(search.pairs))
    ):
        level += 1
    return level


def calibrated(search: balance_search.Search, tier) -> balance_search.Search:
    """``search`` (rolled back) with a calibration tier added: the same games and state, its
    polishing judged at ``tier`` too (docs/balancing.md, "The calibration tier")."""
    s = balance_search.Search(
        search.exp,
        search.moves[: search.searchable],
        search.settings,
        search.out,
        tiers=search.tiers,
        bridge=search.bridge,
        calibration=tier,
        centring=[search.moves[i] for i in search.centring],
        jobs=search.jobs,
    )
    extra = len(s.play_tiers) - len(search.play_tiers)
    s.cands, s.units, s.history = search.cands, search.units, search.history
    s.round, s.elapsed, s.stop, s.searched_s = (
        search.round,
        search.elapsed,
        search.stop,
        search.searched_s,
    )
    for c in s.cands.values():
        c.strong = c.strong + [0] * extra
    s.games = {k: v + [0] * extra for k, v in search.games.items()}
    s.pace = search.pace + [[0.0, 0] for _ in range(extra)]
    s.credit = search.credit + [0.0] * extra
    return s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("search_dir", type=Path)
    ap.add_argument("out_dir", type=Path)
    for flag, name, points, options in KNOBS:
        default = getattr(balance_search, name)
        if points and default is not None:
            default = 100 * default
        ap.add_argument(flag, default=default, **options)
    ap.add_argument("--rounds", type=int, default=8, help="polishing rounds after the anchor")
    ap.add_argument(
        "--probe",
        type=int,
        default=balance_defaults.PROBE_ARMIES,
        help="probe the N armies whose tiers disagree most after the anchor (lab balance --probe)",
    )
    ap.add_argument(
        "--uncalibrated",
        action="store_true",
        help="polish without the search's calibration tier (its games kept, its row not judged)",
    )
    ap.add_argument(
        "--max-edits",
        type=int,
        default=None,
        help="edits a polished set may hold (default: as the search was run)",
    )
    ap.add_argument(
        "--anchor-rank",
        type=int,
        default=1,
        help="polish the selected set of this rank (1: the best, as lab balance does)",
    )
    search_options(ap)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument(
        "--calibrate",
        default=None,
        help="judge the polishing at this calibration tier too (as lab balance --calibrate), "
        "for a search that had none",
    )
    args = ap.parse_args()
    tiers = [args.tiers] if args.tiers else None
    search = rolled_back(args.search_dir, args.out_dir, args.config, args.seed, tiers, args.jobs)
    if args.calibrate:
        from lab.design import balance

        config = load_experiment(args.config)
        search = calibrated(search, balance.pick_tier(config, args.calibrate, "--calibrate"))
    search.settings = dataclasses.replace(
        search.settings,
        polish_rounds=args.rounds,
        probe_armies=args.probe,
        max_edits=args.max_edits or search.settings.max_edits,
    )
    for flag, name, points, _ in KNOBS:
        value = getattr(args, flag.lstrip("-").replace("-", "_"))
        setattr(balance_search, name, value / 100 if points and value is not None else value)
    if args.uncalibrated:
        search.calibration_offset = lambda: None  # no calibrated row: judged at the tiers alone
    ranked = search.selection_ranked()
    first = ranked[args.anchor_rank - 1 :] + ranked[: args.anchor_rank - 1]
    search.selection_ranked = lambda: first  # the polishing starts from selection_ranked()[0]
    anchor = first[0].moves
    print(f"anchor (the best selected set): {list(anchor)}")
    search._polishing(None)  # a games budget: exactly --rounds rounds
    polished = sorted((c for c in search.cands.values() if c.polish), key=lambda c: c.born)
    for c in polished:
        worst = [100 * o.worst for o in search.judged_tiers(c.moves, polish_block)]
        print(f"  {list(c.moves)}  worst per tier: " + " / ".join(f"{w:.1f}" for w in worst))
    best = search.polish_best()
    if best is None:
        raise SystemExit("nothing was polished: give --rounds 1 or more")
    print(f"best on the polishing deals: {list(best.moves)}\n")
    config = load_experiment(args.config)
    edits = [search.moves[i] for i in best.moves]
    text = card_design(config).patch_toml(edits, "balance-1", "polish replay", config)
    (args.out_dir / PATCH).write_text(text, encoding="utf-8")
    print(text)
    print(f"written to {args.out_dir / PATCH} (python benchmarks/proposal_check.py that file)")


if __name__ == "__main__":
    main()
