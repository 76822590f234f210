"""Paired comparisons: the same deals under two variants, or with and without a card.

Owns: pairing games across two arms on the deal key (army pair, deal index, seat order, tier — the
deal stream carries no variant, so both arms played the same deck orders), the paired differences
that follow, and three tables built from them:

- ``compare_variants(records, base, other)`` — per army the change in score between the variants
  and, overall, the change in the first player's score and in the draw rate;
- ``what_moved(records, base, other)`` — everything that can move (armies, matchups, the first
  player, draws, end reasons, comebacks, game length), each with its paired interval and p-value,
  Benjamini–Hochberg over the table, ranked: what moved first, then by |change| / SE;
- ``swap_effect(base, alt, army)`` — a card-swap test: two runs (or two arms) of the same deals,
  the army's change in score overall and per opponent. (The ``lab swap`` command that runs the
  two arms belongs with the runner; this is its analysis.)

A score is 1 for a win, ½ for a draw, 0 for a loss, so a pair's difference is defined even when one
arm drew; with no draws the mean score is the win rate. The change is the mean paired difference;
its error is clustered by deal (``lab.stats.clustered``): the two seat orders of a deal — and, in a
table pooled over tiers, the deal under each tier — are one cluster, not independent pairs. The
interval is Student's t on (deals − 1) degrees of freedom, which is the paired t interval when
every deal contributes one pair. Intervals of shares are clipped to [−1, 1] (a t interval on a few
pairs can overshoot); a change of a score or share whose deals all tie (SE 0: the change altered
no outcome) gets ``tie_interval``'s conservative bounds instead of a zero-width interval; rows with fewer than ``min_games`` pairs are ``thin`` — shown, greyed, never
tested or flagged. ``reference_variant`` picks the variant the others are compared with (the
report and the notebooks share it). Tables are per tier unless ``by`` says otherwise (the default
``by=("tier",)``; ``by=None`` pools tiers and says so in its ``tier`` column). Reads records only;
never simulates.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lab.errors import LabError
from lab.stats.clustered import CLUSTER, deal_clusters, estimate_columns, grouped_mean, tie_interval
from lab.stats.intervals import ALPHA, MIN_GAMES, bh
from lab.stats.records import as_records
from lab.stats.views import group_codes, group_columns, label_pooled

PAIR_KEYS = ("army_a", "army_b", "tier", "deal", "swapped")
REFERENCE = "second_edition"  # the current rulebook: the reference variant when the run has it


def reference_variant(records, base: str | None = None) -> str:
    """The variant others are compared with: ``base`` when given (checked), else
    second_edition when the run has it unpatched, else the run's first variant."""
    rec = as_records(records)
    variants = rec.variants()
    if base is not None:
        if base not in variants:
            raise LabError(
                f"--base \"{base}\" is not a variant of this run (allowed: {', '.join(variants)})"
            )
        return base
    if REFERENCE in variants:
        return REFERENCE
    g = rec.games
    if "patch" in g.columns:  # an unpatched variant before any card patch
        unpatched = set(g.loc[g["patch"].astype(str) == "base", "variant"])
        return next((v for v in variants if v in unpatched), variants[0])
    return variants[0]


_OUTCOME = [
    "winner",
    "first",
    "end_reason",
    "leader_turns",
    "battles",
    "max_deficit_a",
    "max_deficit_b",
]


def pair_games(
    base: pd.DataFrame,
    other: pd.DataFrame,
    keys=PAIR_KEYS,
    *,
    labels: tuple[str, str] = ("base", "other"),
) -> pd.DataFrame:
    """Games of two arms matched on ``keys``: one row per pair, outcome columns suffixed _0, _1.

    ``attrs["unpaired"]`` counts the games of each arm left without a partner.
    """
    keys = list(keys)
    for df, label in ((base, labels[0]), (other, labels[1])):
        missing = [k for k in keys if k not in df.columns]
        if missing:
            raise LabError(f"the {label} games lack pairing column(s) {', '.join(missing)}")
        dup = df.duplicated(keys)
        if dup.any():
            row = df.loc[dup, keys].iloc[0].to_dict()
            raise LabError(
                f"the {label} games repeat a deal key {row}; pairing needs one game "
                f"per ({', '.join(keys)})"
            )
    cols = [c for c in dict.fromkeys(_OUTCOME) if c in base.columns and c in other.columns]
    pairs = base[keys + cols].merge(other[keys + cols], on=keys, how="inner", suffixes=("_0", "_1"))
    if pairs.empty:
        raise LabError(
            f"no paired deals: the {labels[0]} and {labels[1]} games share no "
            f"({', '.join(keys)}); pairing needs the same config seed, armies and "
            "tiers in both arms"
        )
    pairs[CLUSTER] = deal_clusters(pairs)
    pairs.attrs["unpaired"] = {
        labels[0]: len(base) - len(pairs),
        labels[1]: len(other) - len(pairs),
    }
    return pairs


def score_a(winner) -> np.ndarray:
    """Seat A's score per game from the records' ``winner``: win 1, draw ½, loss 0."""
    return np.where(winner == "A", 1.0, np.where(winner == "draw", 0.5, 0.0))


def _seat_diffs(pairs: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Two rows per pair (one per seat's army): the army's score in each arm and the change."""
    s0, s1 = score_a(pairs["winner_0"]), score_a(pairs["winner_1"])
    parts = []
    for army, opp, sign in (("army_a", "army_b", 1), ("army_b", "army_a", -1)):
        p = pairs[[*keys, CLUSTER]].copy()
        p["army"] = pairs[army].to_numpy()
        p["opponent"] = pairs[opp].to_numpy()
        p["s0"] = s0 if sign == 1 else 1 - s0
        p["s1"] = s1 if sign == 1 else 1 - s1
        parts.append(p)
    rows = pd.concat(parts, ignore_index=True)
    rows = rows[rows["army"] != rows["opponent"]]
    rows["d"] = rows["s1"] - rows["s0"]
    return rows


def _summarise(
    frame: pd.DataFrame, group: list[str], kind: str, alpha: float, item=None
) -> pd.DataFrame:
    """The mean paired difference ``d`` per group with its clustered interval, and the mean
    score in each arm (``base`` from s0, ``other`` from s1)."""
    codes, out = group_codes(frame, group)
    out = out.copy()
    ng = len(out)
    est = grouped_mean(frame["d"], codes, frame[CLUSTER], ng)
    n = est["n"].to_numpy(float)
    out["kind"] = kind
    out["item"] = [item(r) for r in out.to_dict("records")] if callable(item) else [item] * ng
    out["pairs"] = est["n"].to_numpy()
    out["deals"] = est["clusters"].to_numpy()
    out["base"] = np.bincount(codes, frame["s0"].to_numpy(float), minlength=ng) / n
    out["other"] = np.bincount(codes, frame["s1"].to_numpy(float), minlength=ng) / n
    cols = estimate_columns("change", est["mean"], est["se"], est["clusters"], est["n"], alpha)
    if kind != "length":  # a score or a share: where every deal ties, a bounded interval
        tie = tie_interval(est["mean"], est["se"], est["clusters"], alpha)
        for c in ("lo", "hi", "p"):
            name = f"change_{c}"
            cols[name] = np.where(tie["tied"], tie[c], cols[name])
    for c in ("change", "change_lo", "change_hi", "change_se"):
        out[c.replace("change_se", "se")] = cols[c]
    out["p"] = cols["change_p"]
    return out


def _variant_pairs(rec, base: str, other: str, keys: list[str]) -> pd.DataFrame:
    variants = list(pd.unique(rec.games["variant"]))
    for v in (base, other):
        if v not in variants:
            raise LabError(f"unknown variant \"{v}\"; the run has: {', '.join(variants)}")
    if base == other:
        raise LabError(f"compare two different variants (both are \"{base}\")")
    g = rec.games
    pair_keys = list(dict.fromkeys([*PAIR_KEYS, *keys]))
    return pair_games(
        g[g["variant"] == base], g[g["variant"] == other], pair_keys, labels=(base, other)
    )


def _overall(pairs: pd.DataFrame, keys: list[str], alpha: float, *, full: bool) -> list:
    parts = []

    def add(kind, item, s0, s1):
        f = pairs[[*keys, CLUSTER]].copy()
        f["s0"], f["s1"] = np.asarray(s0, float), np.asarray(s1, float)
        f["d"] = f["s1"] - f["s0"]
        parts.append(_summarise(f, keys, kind, alpha, item))

    first0 = np.where(
        pairs["winner_0"] == pairs["first_0"], 1.0, np.where(pairs["winner_0"] == "draw", 0.5, 0.0)
    )
    first1 = np.where(
        pairs["winner_1"] == pairs["first_1"], 1.0, np.where(pairs["winner_1"] == "draw", 0.5, 0.0)
    )
    add("overall", "first player score", first0, first1)
    add("overall", "draw rate", pairs["winner_0"] == "draw", pairs["winner_1"] == "draw")
    if not full:
        return parts
    reasons = sorted(set(pairs["end_reason_0"]) | set(pairs["end_reason_1"]))
    for r in reasons:
        add("end", f"end: {r}", pairs["end_reason_0"] == r, pairs["end_reason_1"] == r)
    for i in ("0", "1"):
        wd = np.where(
            pairs[f"winner_{i}"] == "A", pairs[f"max_deficit_a_{i}"], pairs[f"max_deficit_b_{i}"]
        )
        pairs[f"comeback_{i}"] = (pairs[f"winner_{i}"] != "draw") & (wd >= 3)
    add("overall", "comeback (share of all games)", pairs["comeback_0"], pairs["comeback_1"])
    add("length", "leader turns (mean)", pairs["leader_turns_0"], pairs["leader_turns_1"])
    add("length", "battles (mean)", pairs["battles_0"], pairs["battles_1"])
    return parts


def compare_variants(
    records,
    base: str,
    other: str,
    by=("tier",),
    *,
    min_games: int = MIN_GAMES,
    alpha: float = ALPHA,
) -> pd.DataFrame:
    """Per army (and overall) change in score from ``base`` to ``other`` on paired deals.

    Columns: [by…], kind (army / overall), item, army, pairs, deals, base, other, change,
    change_lo, change_hi, se, p, q (Benjamini–Hochberg over the table's non-thin rows), moved
    (q < alpha), thin (fewer than ``min_games`` pairs). ``by`` may split by any games column
    shared by both variants; the default is per tier.
    """
    rec = as_records(records)
    keys = group_columns(rec.games, by)
    pairs = _variant_pairs(rec, base, other, keys)
    rows = _seat_diffs(pairs, keys)
    parts = [_summarise(rows, [*keys, "army"], "army", alpha, lambda r: r["army"])]
    parts += _overall(pairs, keys, alpha, full=False)
    out = _finish(pd.concat(parts, ignore_index=True), min_games)
    out["q"], out["moved"] = bh(out["p"].where(~out["thin"]), alpha)
    out.attrs["unpaired"] = pairs.attrs["unpaired"]
    return label_pooled(_columns(out, keys), rec.games, keys)


def _finish(out: pd.DataFrame, min_games: int) -> pd.DataFrame:
    """Clip score and rate intervals to what a difference of shares can be, mark thin rows."""
    share = out["kind"] != "length"
    for col in ("change_lo", "change_hi"):
        out[col] = np.where(share, out[col].clip(-1.0, 1.0), out[col])
    out["thin"] = out["pairs"] < min_games
    return out


def _columns(out: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    cols = [
        *keys,
        "kind",
        "item",
        "army",
        "opponent",
        "pairs",
        "deals",
        "base",
        "other",
        "change",
        "change_lo",
        "change_hi",
        "se",
        "p",
        "q",
        "moved",
        "thin",
    ]
    for col in ("army", "opponent"):
        if col not in out.columns:
            out[col] = ""
        out[col] = out[col].fillna("")
    return out[[c for c in cols if c in out.columns] + [c for c in out.columns if c not in cols]]


def what_moved(
    records,
    base: str,
    other: str,
    by=("tier",),
    *,
    min_games: int = MIN_GAMES,
    alpha: float = ALPHA,
) -> pd.DataFrame:
    """Everything that changed from ``base`` to ``other``, ranked, with paired intervals.

    Rows: armies, matchups (each unordered pair once, from the first army's side), the first
    player's score, draw rate, end reasons, comebacks, leader turns and battles — per tier by
    default. Rows with fewer than ``min_games`` pairs are ``thin``: shown, never tested. ``q``:
    BH over the other rows; ``moved``: q < alpha. Sorted: moved rows first, then tested rows by
    |change| / SE (``z``), then thin rows.
    """
    rec = as_records(records)
    keys = group_columns(rec.games, by)
    pairs = _variant_pairs(rec, base, other, keys)
    rows = _seat_diffs(pairs, keys)
    parts = [_summarise(rows, [*keys, "army"], "army", alpha, lambda r: r["army"])]
    mrows = rows[rows["army"] < rows["opponent"]]
    parts.append(
        _summarise(
            mrows,
            [*keys, "army", "opponent"],
            "matchup",
            alpha,
            lambda r: f"{r['army']} vs {r['opponent']}",
        )
    )
    parts += _overall(pairs, keys, alpha, full=True)
    out = pd.concat(parts, ignore_index=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["z"] = np.where(out["se"] > 0, out["change"] / out["se"], np.nan)
    out = _finish(out, min_games)
    out["q"], out["moved"] = bh(out["p"].where(~out["thin"]), alpha)
    out = (
        out.assign(_m=~out["moved"], _t=out["thin"], _z=-out["z"].abs().fillna(0))
        .sort_values(["_m", "_t", "_z"], kind="stable")
        .drop(columns=["_m", "_t", "_z"])
        .reset_index(drop=True)
    )
    out.insert(0, "rank", np.arange(1, len(out) + 1))
    out.attrs["unpaired"] = pairs.attrs["unpaired"]
    return label_pooled(_columns(out, ["rank", *keys]), rec.games, keys)


def swap_effect(
    base,
    alt,
    army: str,
    *,
    alt_army: str | None = None,
    by=None,
    keys=(*PAIR_KEYS, "variant"),
    min_games: int = MIN_GAMES,
    alpha: float = ALPHA,
) -> pd.DataFrame:
    """A card swap's causal effect: the army's score change from ``base`` to ``alt`` runs.

    ``base``/``alt``: the two arms (results folders, Records or games frames) played on the same
    deals; ``army``: the army whose deck changed (``alt_army``: its key in the alt arm, if the
    run named the modified deck differently). Rows: the army overall and per opponent, each with
    its paired interval; ``attrs["unpaired"]`` counts games left without a partner.
    """
    g0, g1 = as_records(base).games, as_records(alt).games.copy()
    keys_by = group_columns(g0, by)
    if alt_army is not None and alt_army != army:
        for col in ("army_a", "army_b"):
            g1[col] = g1[col].replace({alt_army: army})
    for g, label in ((g0, "base"), (g1, "alt")):
        armies = set(g["army_a"]) | set(g["army_b"])
        if army not in armies:
            raise LabError(
                f"army \"{army}\" does not play in the {label} arm; it has: "
                f"{', '.join(sorted(armies))}"
            )
    sel = lambda g: g[(g["army_a"] == army) | (g["army_b"] == army)]  # noqa: E731
    pairs = pair_games(
        sel(g0), sel(g1), list(dict.fromkeys([*keys, *keys_by])), labels=("base", "alt")
    )
    rows = _seat_diffs(pairs, keys_by)
    rows = rows[rows["army"] == army]
    if rows.empty:
        raise LabError(f"army \"{army}\" has no paired non-mirror games to compare")
    parts = [
        _summarise(rows, [*keys_by, "army"], "army", alpha, lambda r: r["army"]),
        _summarise(
            rows,
            [*keys_by, "army", "opponent"],
            "matchup",
            alpha,
            lambda r: f"{r['army']} vs {r['opponent']}",
        ),
    ]
    out = _finish(pd.concat(parts, ignore_index=True), min_games)
    out["q"], out["moved"] = bh(out["p"].where(~out["thin"]), alpha)
    out.attrs["unpaired"] = pairs.attrs["unpaired"]
    return _columns(out, keys_by)
