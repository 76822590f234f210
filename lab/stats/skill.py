"""Skill split and tier stability: how army strength and card value change with bot skill.

Owns: ``tier_order`` — the order of the run's tiers from weakest to strongest, either given by the
caller (checked against the tiers the run has) or found from the data: each bot label's win rate
in decisive games against *other* bot labels, a tier ranking by the mean over its two bots; bots
that never met another bot rank by kind (random < heuristic < search, more simulations stronger),
ties keep the run's order; ``skill_split`` — per army (``metric="win_rate"``) or per army × card
(``metric="opening_hand"``, the causal card value of ``lab.stats.causal``) the value at each tier
and ``skill_sensitivity`` = value at the strongest tier − value at the weakest, estimated from the
records on the deals both tiers played: the tiers share deals (the same deck orders), so the
difference's error is clustered by deal (``lab.stats.clustered``), with Student's t at the
caller's ``alpha`` and Benjamini–Hochberg over the table's non-thin rows (a row is thin when
either tier counts fewer than ``min_games``: shown, never tested or flagged); and
``tier_stability`` — the designer's question "does the conclusion hold at every skill level?":
side by side per tier the army win rates (with their band, below / in / above 45–55%) and card
values (with their sign where it passes BH), the Spearman rank correlation of both between tiers,
and the armies and cards whose conclusion changes band or sign with skill — each change backed by
a test that passes Benjamini–Hochberg. Reads records only; never simulates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats as sps

from lab.errors import LabError
from lab.stats.armies import BAND, band_of, army_table
from lab.stats.causal import CONTRASTS, OPENING, card_value, opening_hand_effect
from lab.stats.clustered import (
    CLUSTER,
    diff_influence,
    estimate_columns,
    grouped_diff,
    influence_se,
)
from lab.stats.intervals import ALPHA, MIN_GAMES, bh
from lab.stats.records import as_records
from lab.stats.views import card_rows, group_codes, group_columns, seat_rows

KIND_RANK = {"random": 0, "heuristic": 1, "strong": 2, "search": 2, "expert": 3}
METRICS = ("win_rate", "opening_hand")


def _bot_rank(label: str) -> tuple[int, float]:
    kind = label.split("(")[0].strip().lower()
    sims = re.search(r"simulations\s*=\s*(\d+)", label)
    return KIND_RANK.get(kind, 1), float(sims.group(1)) if sims else 0.0


def _tier_bots(games: pd.DataFrame, tier: str) -> list[str]:
    part = games[games["tier"] == tier]
    if "bot_a" in games.columns and "bot_b" in games.columns:
        return sorted(set(part["bot_a"]) | set(part["bot_b"]))
    return [b for b in tier.split("-vs-") if b]


def tier_order(records, order=None) -> list[str]:
    """Tiers from weakest to strongest (see the module docstring)."""
    rec = as_records(records)
    g = rec.games
    tiers = list(pd.unique(g["tier"]))
    if order is not None:
        order = [order] if isinstance(order, str) else list(order)
        unknown = [t for t in order if t not in tiers]
        if unknown:
            raise LabError(
                f"tier order names {', '.join(unknown)}, not a tier of this run "
                f"(allowed: {', '.join(tiers)})"
            )
        if len(set(order)) != len(order):
            raise LabError("tier order repeats a tier")
        return order
    strength: dict[str, float] = {}
    if "bot_a" in g.columns and "bot_b" in g.columns:
        cross = g[(g["bot_a"] != g["bot_b"]) & (g["winner"] != "draw")]
        wins = pd.concat(
            [cross.loc[cross["winner"] == "A", "bot_a"], cross.loc[cross["winner"] == "B", "bot_b"]]
        ).value_counts()
        played = pd.concat([cross["bot_a"], cross["bot_b"]]).value_counts()
        strength = {b: wins.get(b, 0) / n for b, n in played.items() if n > 0}

    def kind_rank(t):
        ranks = [_bot_rank(b) for b in _tier_bots(g, t)] or [(1, 0.0)]
        return tuple(np.mean(ranks, axis=0))

    def measured(t):
        bots = _tier_bots(g, t)
        return float(np.mean([strength[b] for b in bots])) if bots else np.nan

    if strength and all(all(b in strength for b in _tier_bots(g, t)) for t in tiers):
        return sorted(tiers, key=lambda t: (measured(t), kind_rank(t), tiers.index(t)))
    return sorted(tiers, key=lambda t: (kind_rank(t), tiers.index(t)))


def _side_by_side(
    table: pd.DataFrame, item: list[str], columns: list[str], order: list[str]
) -> pd.DataFrame:
    """One row per ``item`` with each of ``columns`` at each tier of ``order`` as ``col@tier``
    (a tier the table lacks is left out)."""
    wide = table[table["tier"].isin(order)].set_index([*item, "tier"])[columns].unstack("tier")
    out = pd.DataFrame(index=wide.index)
    for t in order:
        if (columns[0], t) in wide.columns:
            for c in columns:
                out[f"{c}@{t}"] = wide[(c, t)]
    return out.reset_index()


def _order(rec, order) -> list[str]:
    order = tier_order(rec, order)
    if len(order) < 2:
        raise LabError(f"a skill split needs two tiers; the run has {', '.join(order)}")
    return order


def _tier_difference(
    rows: pd.DataFrame,
    keys: list[str],
    y: str,
    weak: str,
    strong: str,
    strata: str | None,
    alpha: float,
) -> pd.DataFrame:
    """Per group of ``keys``: (strong − weak) of the mean of ``y`` (no strata) or of the
    within-strata opening-hand difference (``strata``: the column of the strata), clustered by
    deal across both tiers — the fully interacted OLS, one coefficient set per tier."""
    rows = rows[rows["tier"].isin([weak, strong])].reset_index(drop=True)
    codes, out = group_codes(rows, keys)
    out = out.copy()
    ng = len(out)
    is_strong = (rows["tier"] == strong).to_numpy()
    if strata is None:
        est = grouped_diff(rows[y], is_strong, codes, rows[CLUSTER], n_groups=ng)
        diff, se, g = est["diff"].to_numpy(), est["se"].to_numpy(), est["clusters"].to_numpy()
    else:
        sub = codes * 2 + is_strong
        n_sub = 2 * ng
        beta, sxx, k, psi = diff_influence(
            rows[y], rows["opening"] > 0, sub, pd.factorize(rows[strata])[0], n_sub
        )
        sub_group = np.zeros(n_sub, dtype=np.int64)
        sub_group[sub] = codes
        sub_strong = np.zeros(n_sub, dtype=bool)
        sub_strong[sub] = is_strong
        signed = np.where(is_strong, psi, -psi)
        k_group = np.bincount(sub_group, k, minlength=ng)
        se, g, _ = influence_se(signed, codes, rows[CLUSTER], k_group, ng)
        b_strong = np.full(ng, np.nan)
        b_weak = np.full(ng, np.nan)
        b_strong[sub_group[sub_strong]] = beta[sub_strong]
        b_weak[sub_group[~sub_strong]] = beta[~sub_strong]
        ok = np.zeros(ng, dtype=bool)
        ok[sub_group[(sxx > 0) & sub_strong]] = True
        ok2 = np.zeros(ng, dtype=bool)
        ok2[sub_group[(sxx > 0) & ~sub_strong]] = True
        diff = b_strong - b_weak
        se = np.where(ok & ok2, se, np.nan)
    cols = estimate_columns(
        "skill_sensitivity", diff, se, g, np.bincount(codes, minlength=ng), alpha
    )
    for c in (
        "skill_sensitivity",
        "skill_sensitivity_lo",
        "skill_sensitivity_hi",
        "skill_sensitivity_p",
    ):
        out[c] = cols[c]
    out["deals"] = g
    return out


def skill_split(
    records,
    metric: str = "win_rate",
    *,
    by=("variant",),
    order=None,
    min_games: int = MIN_GAMES,
    alpha: float = ALPHA,
) -> pd.DataFrame:
    """One row per army (``win_rate``) or army × card (``opening_hand``) and group of ``by``.

    Columns: ``value@tier`` and ``value_n@tier`` for each tier (weakest first; for opening_hand
    n is the smaller of the games with and without the card in hand), ``skill_sensitivity`` =
    strongest − weakest with ``_lo``/``_hi`` (clustered by deal), ``skill_p``, ``skill_q``,
    ``skill_flag`` (BH at ``alpha`` over the non-thin rows), ``thin``, ``weaker``, ``stronger``.
    """
    if metric not in METRICS:
        raise LabError(f"skill split metric \"{metric}\" is not one of: {', '.join(METRICS)}")
    rec = as_records(records)
    order = _order(rec, order)
    keys = [k for k in group_columns(rec.games, by) if k != "tier"]
    weak, strong = order[0], order[-1]
    if metric == "win_rate":
        per = army_table(rec, by=(*keys, "tier"), min_games=min_games, alpha=alpha)
        per = per.rename(
            columns={
                "win_rate": "value",
                "win_rate_n": "value_n",
                "win_rate_lo": "value_lo",
                "win_rate_hi": "value_hi",
            }
        )
        item = [*keys, "army"]
        rows = seat_rows(rec.games, keep=[*keys, "tier"])
        rows = rows[~rows["mirror"] & (rows["won"] | rows["lost"])]
        diff = _tier_difference(
            rows.assign(won=rows["won"].astype(float)), item, "won", weak, strong, None, alpha
        )
    else:
        per = opening_hand_effect(rec, by=(*keys, "tier"), min_games=min_games, alpha=alpha)
        per = per.rename(
            columns={"effect": "value", "effect_lo": "value_lo", "effect_hi": "value_hi"}
        )
        per["value_n"] = np.minimum(per["in_opening"], per["games"] - per["in_opening"])
        item = [*keys, "army", "card"]
        rows = card_rows(rec.require_cards(), rec.games, [*keys, "tier"])
        rows = rows[~rows["mirror"]]
        diff = _tier_difference(rows, item, "score", weak, strong, "opponent", alpha)
    out = _side_by_side(per, item, ["value", "value_lo", "value_hi", "value_n"], order)
    out = out.merge(diff, on=item, how="left")
    n_min = np.fmin(out.get(f"value_n@{weak}", np.nan), out.get(f"value_n@{strong}", np.nan))
    out["thin"] = ~(np.asarray(n_min, dtype=float) >= min_games)
    out["skill_p"] = np.where(out["thin"], np.nan, out.pop("skill_sensitivity_p"))
    out["skill_q"], out["skill_flag"] = bh(out["skill_p"], alpha)
    out["weaker"], out["stronger"] = weak, strong
    out.attrs["order"] = order
    return out


# ----------------------------------------------------------------------------- tier stability


@dataclass
class TierStability:
    """Side-by-side tables of one run's tiers (see ``tier_stability``)."""

    order: list[str]
    armies: pd.DataFrame  # per army: win rate @ tier, band @ tier, the skill difference
    cards: pd.DataFrame  # per army × card: value @ tier, sign @ tier, measure
    correlation: pd.DataFrame  # per group × tier pair: Spearman rho of armies and of cards
    changes: pd.DataFrame = field(default_factory=pd.DataFrame)  # conclusions that change


def card_sign(value, flag) -> np.ndarray:
    """A card value's conclusion: "+" or "−" where it passes its test (``flag``: BH in its
    family, never on a thin row), else "0" (no detectable effect)."""
    value = np.asarray(value, dtype=float)
    flag = np.asarray(pd.Series(flag).fillna(False), dtype=bool)
    return np.where(flag & (value > 0), "+", np.where(flag & (value < 0), "−", "0"))


def tier_stability(
    records,
    *,
    order=None,
    value: pd.DataFrame | None = None,
    min_games: int = MIN_GAMES,
    alpha: float = ALPHA,
    band: tuple[float, float] = BAND,
) -> TierStability:
    """Army win rates and card values per tier side by side, their rank correlation between
    tiers (within each variant), and the armies (band) and cards (sign) whose conclusion changes
    with skill.

    An army's conclusion at a tier is its band (below / in band / above ``band``, from the win
    rate); it *changes* when two tiers' bands differ and the difference between the weakest and
    the strongest tier passes its test (``skill_flag``: clustered by deal, BH). A card's
    conclusion is the sign of its ``lab value`` (when ``value`` covers every tier of the
    variant; a variant it covers in part falls back, whole, to the opening hand) or
    opening-hand effect where that passes BH in its family ("+" or "−"), else "0"; it *changes*
    when the card is "+"/"−" at one tier and of the opposite sign at another *and* the
    difference between those two tiers passes its own test (``_tier_tests``: BH over every card
    × pair of tiers; columns ``tier_pair``, ``tier_diff``, ``tier_lo``, ``tier_hi``,
    ``tier_p``, ``tier_q``; ``sign_flips`` marks the flips before that test). Thin rows are
    shown, never counted as a change — so a change is never a multiple-comparison accident of
    one tier's raw interval, nor two intervals that overlap.
    """
    rec = as_records(records)
    order = _order(rec, order)
    keys = ["variant"]
    armies = skill_split(rec, "win_rate", by=keys, order=order, min_games=min_games, alpha=alpha)
    for t in order:
        armies[f"band@{t}"] = band_of(armies[f"value@{t}"], band)
    bands = armies[[f"band@{t}" for t in order]]
    thin_any = np.zeros(len(armies), dtype=bool)
    for t in order:
        thin_any |= ~(armies[f"value_n@{t}"].to_numpy(float) >= min_games)
    armies["changes"] = (
        (bands.nunique(axis=1) > 1).to_numpy() & ~thin_any & armies["skill_flag"].to_numpy(bool)
    )

    oh = opening_hand_effect(rec, by=(*keys, "tier"), min_games=min_games, alpha=alpha)
    if value is not None:  # one measure per variant across its tiers, or the comparison is moot
        full = [v for v, part in value.groupby("variant") if set(order) <= set(part["tier"])]
        value = value[value["variant"].isin(full)]
    cv = card_value(rec, value, min_games=min_games, alpha=alpha, oh=oh)
    ck = [*keys, "army", "card"]
    cards = _side_by_side(cv, ck, ["value", "lo", "hi", "q", "flag", "thin", "measure"], order)
    for t in order:
        if f"value@{t}" in cards:
            cards[f"sign@{t}"] = card_sign(cards[f"value@{t}"], cards[f"flag@{t}"])
            cards[f"thin@{t}"] = cards[f"thin@{t}"].fillna(True).astype(bool)
    cards = _tier_tests(rec, cards, value, order, keys, alpha)

    corr = []
    for variant, part in armies.groupby("variant", sort=False):
        cpart = cards[cards["variant"] == variant]
        for i, t1 in enumerate(order):
            for t2 in order[i + 1 :]:
                row = {"variant": variant}
                row["tiers"] = f"{t1} vs {t2}"
                row["armies_rho"], row["armies_n"] = _spearman(
                    part[f"value@{t1}"], part[f"value@{t2}"]
                )
                ok = ~(cpart[f"thin@{t1}"] | cpart[f"thin@{t2}"])
                row["cards_rho"], row["cards_n"] = _spearman(
                    cpart.loc[ok, f"value@{t1}"], cpart.loc[ok, f"value@{t2}"]
                )
                corr.append(row)
    changes = pd.concat(
        [
            armies.loc[armies["changes"], [*keys, "army"]].assign(kind="army"),
            cards.loc[cards["changes"], [*keys, "army", "card"]].assign(kind="card"),
        ],
        ignore_index=True,
    )
    return TierStability(order, armies, cards, pd.DataFrame(corr), changes)


def _pairs(cards: pd.DataFrame, order: list[str]) -> list[tuple[str, str]]:
    return [
        (t1, t2)
        for i, t1 in enumerate(order)
        for t2 in order[i + 1 :]
        if f"value@{t1}" in cards and f"value@{t2}" in cards
    ]


def _sign_flip(cards: pd.DataFrame, t1: str, t2: str) -> np.ndarray:
    """Firm ("+" or "−") at one of the two tiers and of the opposite sign at the other, neither
    thin."""
    s1, s2 = cards[f"sign@{t1}"], cards[f"sign@{t2}"]
    v1, v2 = cards[f"value@{t1}"], cards[f"value@{t2}"]
    firm = (s1 != "0") | (s2 != "0")
    opposite = np.sign(v1) * np.sign(v2) < 0
    usable = ~(cards[f"thin@{t1}"] | cards[f"thin@{t2}"])
    return (firm & opposite & usable).to_numpy()


def _sign_changes(cards: pd.DataFrame, order: list[str]) -> np.ndarray:
    """Rows whose sign flips between some two tiers (``_sign_flip``), before any test of the
    difference."""
    out = np.zeros(len(cards), dtype=bool)
    for t1, t2 in _pairs(cards, order):
        out |= _sign_flip(cards, t1, t2)
    return out


TIER_TEST = ["tier_pair", "tier_diff", "tier_lo", "tier_hi", "tier_p", "tier_q"]


def _tier_tests(
    rec,
    cards: pd.DataFrame,
    value: pd.DataFrame | None,
    order: list[str],
    keys: list[str],
    alpha: float,
) -> pd.DataFrame:
    """The between-tier test of each card's value, and ``changes``: a sign flip between two
    tiers (``_sign_flip``) whose difference passes Benjamini–Hochberg over every card × tier
    pair tested in the table.

    The difference (later − earlier tier) is estimated as the values were: the opening-hand
    effect's from the records on the deals both tiers played (the fully interacted regression of
    ``skill_split``, clustered by deal); ``lab value``'s from its table — value and SE per tier,
    the two taken as independent (the table holds no covariance; measured on a two-tier value
    run, this SE was 0.99–1.16 times the exact one clustered across both tiers: docs/stats.md),
    t on the smaller number of deals − 1. Columns ``TIER_TEST``: the pair of tiers whose test is shown
    (the sign flip with the smallest p, else the weakest and strongest tier), the difference,
    its interval, p and q."""
    item = [*keys, "army", "card"]
    tests, rows = [], None
    lookup = None
    if value is not None and len(value):
        lookup = value.set_index(["variant", "tier", "army", "card", "contrast"])[["se", "deals"]]
    for t1, t2 in _pairs(cards, order):
        m1, m2 = cards[f"measure@{t1}"], cards[f"measure@{t2}"]
        usable = (
            ~(cards[f"thin@{t1}"] | cards[f"thin@{t2}"])
            & (m1 == m2)
            & cards[f"value@{t1}"].notna()
            & cards[f"value@{t2}"].notna()
        )
        flip = _sign_flip(cards, t1, t2)
        oh = usable & (m1 == OPENING)
        if oh.any():
            if rows is None:
                rows = card_rows(rec.require_cards(), rec.games, [*keys, "tier"])
                rows = rows[~rows["mirror"]]
            d = _tier_difference(rows, item, "score", t1, t2, "opponent", alpha)
            hit = cards.loc[oh, item].reset_index().merge(d, on=item, how="left")
            tests.append(
                pd.DataFrame(
                    {
                        "row": hit["index"],
                        "tier_pair": f"{t1} → {t2}",
                        "tier_diff": hit["skill_sensitivity"],
                        "tier_lo": hit["skill_sensitivity_lo"],
                        "tier_hi": hit["skill_sensitivity_hi"],
                        "tier_p": hit["skill_sensitivity_p"],
                        "flip": flip[hit["index"].to_numpy()],
                    }
                )
            )
        lv = usable & (m1 != OPENING)
        if lv.any() and lookup is not None:
            part = cards.loc[lv]
            contrast = part[f"measure@{t1}"].map({v: k for k, v in CONTRASTS.items()})
            got = [
                [lookup.loc[(v, t, a, c, k)] for t in (t1, t2)]
                for v, a, c, k in zip(part["variant"], part["army"], part["card"], contrast)
            ]
            se = np.hypot([g[0]["se"] for g in got], [g[1]["se"] for g in got])
            deals = np.minimum([g[0]["deals"] for g in got], [g[1]["deals"] for g in got])
            diff = (part[f"value@{t2}"] - part[f"value@{t1}"]).to_numpy(float)
            cols = estimate_columns("d", diff, se, deals, deals, alpha)
            tests.append(
                pd.DataFrame(
                    {
                        "row": part.index,
                        "tier_pair": f"{t1} → {t2}",
                        "tier_diff": diff,
                        "tier_lo": cols["d_lo"],
                        "tier_hi": cols["d_hi"],
                        "tier_p": cols["d_p"],
                        "flip": flip[lv.to_numpy()],
                    }
                )
            )
    out = cards.copy()
    out["sign_flips"] = _sign_changes(cards, order)  # by the point values, before any test
    for c in TIER_TEST:
        out[c] = "" if c == "tier_pair" else np.nan
    out["changes"] = False
    if not tests:
        return out
    t = pd.concat(tests, ignore_index=True)
    t["tier_q"], t["passes"] = bh(t["tier_p"], alpha)
    changed = t.loc[t["flip"] & t["passes"], "row"].unique()
    out.loc[changed, "changes"] = True
    # the test shown: a sign flip's (smallest p first), else the widest pair of tiers
    widest = t["tier_pair"] == f"{order[0]} → {order[-1]}"
    t = (
        t.assign(_f=~t["flip"], _w=~widest, _p=t["tier_p"].fillna(2.0))
        .sort_values(["_f", "_w", "_p"], kind="stable")
        .drop_duplicates("row")
    )
    shown = t.set_index("row")
    for c in TIER_TEST:
        out.loc[shown.index, c] = shown[c]
    return out


def _spearman(a, b) -> tuple[float, int]:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ok = np.isfinite(a) & np.isfinite(b)
    n = int(ok.sum())
    if n < 3 or np.ptp(a[ok]) == 0 or np.ptp(b[ok]) == 0:
        return np.nan, n  # a constant column ranks nothing (scipy would warn and say nan)
    return float(sps.spearmanr(a[ok], b[ok]).statistic), n
