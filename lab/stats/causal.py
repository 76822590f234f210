"""Causal card value: numbers from designs that randomise a card's presence.

Owns: ``opening_hand_effect`` — per army × card (× variant and tier by default): the army's score
(win 1, draw ½, loss 0) in games with ≥ 1 copy of the card in its opening hand minus in games
without, estimated within matchups (opponent fixed effects) over the army's non-mirror games.
The shuffle decides the opening hand before any play, so — unlike "drawn" — its presence is not a
consequence of winning: the comparison is randomised. Errors are clustered by deal (a deal gives
the army the same deck order in both seat orders, and in every variant and tier;
``lab.stats.clustered``); intervals are Student's t on deals − 1; BH (``fdr_bh``) over the
non-thin cards of each variant × tier. A mulligan (rules R3.4, ``mulligan`` on: legacy_testlab)
redraws a hand without a unit of strength ≤ 3 and the records keep only the kept hand, so in
those variants the comparison is randomised only up to the redraw rule: rows say so in
``design``. It also owns reading ``lab value``'s table for the report (``read_value``: None when a
results folder has none, else the table read by ``lab.stats.value``, typed and checked) and
``card_value``, the ranked causal value per card the report and notebooks lead with: ``lab
value``'s rows where the folder holds them, else the opening-hand effect. The ``lab value`` run
and its statistics live in ``lab.design`` and ``lab.stats.value``; nothing here simulates.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from lab.errors import LabError
from lab.stats.clustered import CLUSTER, estimate_columns, grouped_diff
from lab.stats.intervals import ALPHA, MIN_GAMES, bh
from lab.stats.records import as_records
from lab.stats.value import FILE, VALUE_COLUMNS
from lab.stats.value import read_value as read_value_file
from lab.stats.views import BY, card_rows, group_codes, group_columns, label_pooled

RANDOMISED = "randomised (opening hand)"
UP_TO_MULLIGAN = "randomised up to the mulligan (kept hand)"

# the types of lab value's columns (lab.stats.value.VALUE_COLUMNS, the design engineer's schema)
VALUE_TYPES: dict[str, str] = {
    "variant": "str",
    "tier": "str",
    "army": "str",
    "army_name": "str",
    "card_id": "str",
    "card": "str",
    "copies": "int",
    "contrast": "str",
    "replacement": "str",
    "value": "float",
    "lo": "float",
    "hi": "float",
    "se": "float",
    "p": "float",
    "q": "float",
    "games": "int",
    "deals": "int",
    "base_rate": "float",
}
assert list(VALUE_TYPES) == VALUE_COLUMNS, "lab.stats.value changed its schema"
CONTRASTS = {"above_vanilla": "above vanilla", "ability_off": "ability off"}
OPENING = "opening hand"


def _bh_within(out: pd.DataFrame, keys: list[str], p: str, alpha: float):
    """BH over the finite ``p`` of each group of ``keys`` (the whole table without keys)."""
    q = np.full(len(out), np.nan)
    flag = np.zeros(len(out), dtype=bool)
    parts = (
        out.groupby(keys, sort=False, observed=True).indices if keys else {0: np.arange(len(out))}
    )
    for idx in parts.values():
        q[idx], flag[idx] = bh(out[p].to_numpy()[idx], alpha)
    return q, flag


def opening_hand_effect(
    records, by=BY, *, min_games: int = MIN_GAMES, alpha: float = ALPHA
) -> pd.DataFrame:
    """The opening-hand effect per army × card (× group), as described in the module docstring.

    Columns: [by…], army, card, card_id, copies, games (the army's non-mirror games), in_opening
    (games with the card in the opening hand), opening_share, with_score / without_score (mean
    score in each), effect, effect_lo, effect_hi, se, deals, p, q, flag (q < alpha), thin (fewer
    than ``min_games`` games with or without the card in hand: shown, never tested), design.
    """
    rec = as_records(records)
    keys = group_columns(rec.games, by)
    extra = ["mulligan"] if "mulligan" in rec.games.columns else []
    rows = card_rows(rec.require_cards(), rec.games, [*keys, *extra])
    rows = rows[~rows["mirror"]].reset_index(drop=True)
    treated = (rows["opening"] > 0).to_numpy()
    y = rows["score"].to_numpy(float)
    gk = [*keys, "army", "card"]
    codes, out = group_codes(rows, gk)
    out = out.copy()
    ng = len(out)
    strata = pd.factorize(rows["opponent"])[0]
    est = grouped_diff(y, treated, codes, rows[CLUSTER], strata, n_groups=ng)
    first = pd.Series(np.arange(len(rows))).groupby(codes).first().to_numpy()
    if "card_id" in rows.columns:
        out["card_id"] = rows["card_id"].to_numpy()[first]
    out["copies"] = pd.Series(rows["copies"].to_numpy()).groupby(codes).max().to_numpy()
    n = est["n"].to_numpy()
    k = est["treated"].to_numpy()
    out["games"] = n
    out["in_opening"] = k
    out["opening_share"] = k / np.where(n > 0, n, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["with_score"] = np.bincount(codes, y * treated, minlength=ng) / k
        out["without_score"] = np.bincount(codes, y * ~treated, minlength=ng) / (n - k)
    cols = estimate_columns("effect", est["diff"], est["se"], est["clusters"], n, alpha)
    for c in ("effect", "effect_lo", "effect_hi"):
        out[c] = cols[c]
    out["se"] = cols["effect_se"]
    out["deals"] = est["clusters"].to_numpy()
    out["thin"] = (k < min_games) | (n - k < min_games)
    out["p"] = np.where(out["thin"], np.nan, cols["effect_p"])
    out["q"], out["flag"] = _bh_within(out, keys, "p", alpha)
    mull = (
        rows["mulligan"].astype(bool).groupby(codes).any().to_numpy()
        if extra
        else np.zeros(ng, dtype=bool)
    )
    out["design"] = np.where(mull, UP_TO_MULLIGAN, RANDOMISED)
    return label_pooled(out, rec.games, keys)


# ------------------------------------------------------------------------------- lab value


def value_path(folder) -> Path | None:
    """The value table ``lab value`` wrote for a results folder — FOLDER/value/value.parquet,
    else FOLDER/value.parquet (the order ``lab.stats.value.read_value`` reads) — or None."""
    folder = Path(folder)
    return next((p for p in (folder / "value" / FILE, folder / FILE) if p.is_file()), None)


def read_value(folder) -> pd.DataFrame | None:
    """``lab value``'s table for a results folder, checked and typed; None when it has none.

    One row per (variant, tier, army, card, contrast): ``value`` = the army's win rate with the
    card as is − with the contrast applied (positive: the card or its ability helps its army),
    ``lo``/``hi`` its 95% interval clustered by deal, ``q`` BH across the cards of one variant ×
    tier × contrast, ``games`` per arm. The file is read by ``lab.stats.value.read_value``; a
    malformed table (a missing column, a value of the wrong type, an unknown contrast) is a
    LabError naming the file and the column.
    """
    path = value_path(folder)
    if path is None:
        return None
    df = read_value_file(folder).copy()
    for col, kind in VALUE_TYPES.items():
        try:
            if kind == "int":
                df[col] = df[col].astype("int64")
            elif kind == "float":
                df[col] = df[col].astype(float)
            else:
                df[col] = df[col].fillna("").astype(str)
        except (ValueError, TypeError) as e:
            raise LabError(
                f"value column \"{col}\" must hold {kind} values ({e})", source=str(path)
            ) from None
    bad = sorted(set(df["contrast"]) - set(CONTRASTS))
    if bad:
        raise LabError(
            f"value column \"contrast\" has value(s) {', '.join(map(repr, bad[:5]))}; "
            f"allowed: {', '.join(CONTRASTS)}",
            source=str(path),
        )
    df.attrs["path"] = str(path)
    return df.reset_index(drop=True)


def _with_abilities(names) -> set[str]:
    """The cards among ``names`` that have an ability (those ``lab value`` measures); a name
    the pool does not know counts as one."""
    from lab.games import get

    pool = get(None).card_pool()  # the default game's cards (lab value edits only its cards)
    return {n for n in names if n not in pool or pool.get(n).abilities}


CARD_VALUE_COLUMNS = [
    "variant",
    "tier",
    "army",
    "card",
    "measure",
    "value",
    "lo",
    "hi",
    "q",
    "flag",
    "thin",
    "games",
    "detail",
]


def card_value(
    records,
    value: pd.DataFrame | None = None,
    *,
    min_games: int = MIN_GAMES,
    alpha: float = ALPHA,
    oh: pd.DataFrame | None = None,
    opening: bool = True,
) -> pd.DataFrame:
    """The value of each card per variant × tier, one measure per group, ranked.

    Where ``value`` (``read_value``) covers a variant × tier, its ``above_vanilla`` rows (else
    ``ability_off``) are used — the change in the army's win rate from the card itself;
    elsewhere, with ``opening``, the opening-hand effect (``oh``, computed when not given) —
    the change in the army's score when the card starts in hand, which says when holding the
    card helps, not what the card is worth to its army. ``opening=False`` keeps ``lab value``'s
    rows only: the causes the report names. ``measure`` says which; ``flag`` = q < alpha on a
    non-thin row; ``detail`` is the other contrast or the opening share, for display. Sorted by
    variant, tier and value, largest first. ``attrs["coverage"]``: for each group ``lab value``
    covers, (cards it measured, cards of the run with an ability) — a run with ``--cards``
    measures some; the report says so rather than mix two measures in one ranking.
    ``attrs["uncovered"]``: the (variant, tier) groups of the run ``lab value`` does not cover.
    """
    rec = as_records(records)
    parts, covered = [], set()
    if value is not None and len(value):
        for (v, t), part in value.groupby(["variant", "tier"], sort=False):
            contrast = (
                "above_vanilla" if (part["contrast"] == "above_vanilla").any() else "ability_off"
            )
            main = part[part["contrast"] == contrast]
            other = part[part["contrast"] != contrast].set_index(["army", "card"])
            rows = main[
                ["variant", "tier", "army", "card", "value", "lo", "hi", "q", "games"]
            ].copy()
            rows["measure"] = CONTRASTS[contrast]
            rows["thin"] = rows["games"] < min_games
            rows["flag"] = (rows["q"] < alpha) & ~rows["thin"]
            rows["detail"] = [
                (
                    f"{CONTRASTS[other.loc[(a, c), 'contrast']]}: "
                    f"{100 * other.loc[(a, c), 'value']:+.1f}"
                )
                if (a, c) in other.index
                else ""
                for a, c in zip(rows["army"], rows["card"])
            ]
            parts.append(rows)
            covered.add((v, t))
    if oh is None:
        oh = opening_hand_effect(rec, min_games=min_games, alpha=alpha)
    rest = oh[[(v, t) not in covered for v, t in zip(oh["variant"], oh["tier"])]]
    # how many of a covered group's cards lab value measured (it may have run with --cards); a
    # card without abilities (a vanilla 足軽) is its own vanilla and never gets a row
    coverage = {}
    with_ability = _with_abilities(pd.unique(oh["card"]))
    for (v, t), part in oh.groupby(["variant", "tier"], sort=False):
        if (v, t) in covered:
            measured = value[(value["variant"] == v) & (value["tier"] == t)]
            coverage[(v, t)] = (
                measured[["army", "card"]].drop_duplicates().shape[0],
                int(part["card"].isin(with_ability).sum()),
            )
    uncovered = list(dict.fromkeys((v, t) for v, t in zip(rest["variant"], rest["tier"])))
    if len(rest) and opening:
        rows = rest.rename(columns={"effect": "value", "effect_lo": "lo", "effect_hi": "hi"})
        rows = rows[
            ["variant", "tier", "army", "card", "value", "lo", "hi", "q", "games", "thin", "flag"]
        ].copy()
        rows["measure"] = OPENING
        rows["detail"] = [f"in the opening hand in {s:.0%} of games" for s in rest["opening_share"]]
        parts.append(rows)
    if not parts:
        out = pd.DataFrame(columns=CARD_VALUE_COLUMNS)
    else:
        out = pd.concat(parts, ignore_index=True)[CARD_VALUE_COLUMNS]
        out = out.sort_values(
            ["variant", "tier", "value"], ascending=[True, True, False], kind="stable"
        ).reset_index(drop=True)
    out.attrs["coverage"] = coverage
    out.attrs["uncovered"] = uncovered
    return out
