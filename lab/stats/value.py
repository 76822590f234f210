"""Card value (``lab value``): the causal worth of each card to its army, from paired arms.

Owns the value table — its computation from the games of a value run and its file,
``value.parquet`` (``VALUE_COLUMNS``, one row per variant × tier × army × card × contrast), and
reading it back for the report. An arm is a card patch that changes one card of one army (its
ability turned off, or every copy replaced by a vanilla 足軽); ``arms`` says which patch is which
(``ARM_COLUMNS``), so a patch may serve two contrasts. Each game of the army in an arm is paired
with the base game of the same deal and seat order (same deck orders, same play words), and

    value = the army's score with the card as is − its score with the contrast applied

(score: win 1, draw ½, loss 0 — the win rate when no game is drawn), averaged over the army's
games against the other armies (mirror games are not part of a value run). The interval is the
cluster-robust one of statsmodels' OLS on a constant, clustered by deal (the two seat orders of a
deal, like base and arm, are one cluster), with t quantiles on clusters − 1 degrees of freedom
(an arm whose pairs all tie — it changed no outcome — gets the conservative interval of
``lab.stats.clustered.tie_interval``, never a zero-width one); ``q`` is Benjamini–Hochberg (statsmodels ``multipletests``) across the cards of one variant ×
tier × contrast. A pair in which either game hit an engine limit (``error``) is left out. It
reads records handed to it, never simulates, and knows no rule.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from lab.errors import LabError
from lab.games.protocol import ABILITY_OFF, ABOVE_VANILLA
from lab.stats.clustered import tie_interval
from lab.stats.intervals import ALPHA

FILE = "value.parquet"
CONTRASTS = (ABILITY_OFF, ABOVE_VANILLA)
ARM_COLUMNS = ["patch", "army", "army_name", "card_id", "card", "copies", "contrast", "replacement"]
VALUE_COLUMNS = [
    "variant",
    "tier",
    "army",
    "army_name",
    "card_id",
    "card",
    "copies",
    "contrast",
    "replacement",
    "value",
    "lo",
    "hi",
    "se",
    "p",
    "q",
    "games",
    "deals",
    "base_rate",
]
GAME_COLUMNS = [
    "variant",
    "patch",
    "tier",
    "army_a",
    "army_b",
    "deal",
    "swapped",
    "winner",
    "error",
]
_PAIR = ["rules", "tier", "army_a", "army_b", "deal", "swapped"]
_TYPES = {"copies": "int64", "games": "int64", "deals": "int64"}


def value_table(
    games: pd.DataFrame, arms: pd.DataFrame, *, base: str = "base", alpha: float = ALPHA
) -> pd.DataFrame:
    """The value rows (``VALUE_COLUMNS``) of a value run's games (``GAME_COLUMNS``; the
    ``variant`` of an arm's game is RULES@PATCH) and its arms (``ARM_COLUMNS``)."""
    missing = [c for c in GAME_COLUMNS if c not in games.columns]
    if missing:
        raise LabError(
            f"the games records lack column(s) {', '.join(missing)} "
            "(docs/records.md); was this folder written by lab value?"
        )
    g = games[GAME_COLUMNS].copy()
    # a variant id is RULES or RULES@PATCH; neither a rule set id nor a patch name holds "@"
    g["rules"] = g["variant"].map({v: v.partition("@")[0] for v in g["variant"].unique()})
    g["score_a"] = np.select([g["winner"] == "A", g["winner"] == "draw"], [1.0, 0.5], 0.0)
    owners = arms.drop_duplicates("patch").set_index("patch")["army"]
    armed = g[g["patch"].isin(owners.index)].copy()
    armed["army"] = armed["patch"].map(owners)
    armed = armed[
        (armed["army_a"] != armed["army_b"])
        & ((armed["army_a"] == armed["army"]) | (armed["army_b"] == armed["army"]))
    ]
    pairs = armed.merge(
        g[g["patch"] == base][_PAIR + ["score_a", "error"]],
        on=_PAIR,
        suffixes=("_arm", "_base"),
        validate="many_to_one",
    )
    pairs = pairs[~(pairs["error_arm"].astype(bool) | pairs["error_base"].astype(bool))]
    seat_a = (pairs["army_a"] == pairs["army"]).to_numpy()
    own = lambda s: np.where(seat_a, s, 1.0 - s)  # noqa: E731  (the army's score)
    pairs["s_base"] = own(pairs["score_a_base"].to_numpy())
    pairs["d"] = pairs["s_base"] - own(pairs["score_a_arm"].to_numpy())
    lo_army = np.minimum(pairs["army_a"], pairs["army_b"])
    hi_army = np.maximum(pairs["army_a"], pairs["army_b"])
    pairs["cluster"] = pd.factorize(pd.MultiIndex.from_arrays([lo_army, hi_army, pairs["deal"]]))[0]
    stats = [
        dict(zip(("rules", "tier", "patch"), key), **_clustered(part, alpha))
        for key, part in pairs.groupby(["rules", "tier", "patch"], sort=False)
    ]
    cols = ["rules", "tier", "patch", "value", "lo", "hi", "se", "p", "games", "deals", "base_rate"]
    per_arm = pd.DataFrame(stats, columns=cols)
    arms = arms[ARM_COLUMNS].assign(_arm=np.arange(len(arms)))
    out = per_arm.merge(arms, on="patch").rename(columns={"rules": "variant"})
    out["q"] = np.nan
    for _, idx in out.groupby(["variant", "tier", "contrast"]).groups.items():
        out.loc[idx, "q"] = _bh(out.loc[idx, "p"].to_numpy())
    # variants and tiers in the order the run played them, then the arms' order (army, card)
    first = {
        c: {v: i for i, v in enumerate(pd.unique(g[src]))}
        for c, src in (("variant", "rules"), ("tier", "tier"))
    }
    out = out.assign(_v=out["variant"].map(first["variant"]), _t=out["tier"].map(first["tier"]))
    out = out.sort_values(["_v", "_t", "_arm"], kind="stable")
    return out[VALUE_COLUMNS].astype(_TYPES).reset_index(drop=True)


def _clustered(part: pd.DataFrame, alpha: float) -> dict:
    """Mean paired difference with its cluster-robust interval (statsmodels OLS on a constant,
    clustered by deal; t quantiles on clusters − 1 degrees of freedom)."""
    import statsmodels.api as sm

    d = part["d"].to_numpy()
    n, k = len(d), int(part["cluster"].nunique())
    row = {
        "value": float(d.mean()) if n else np.nan,
        "games": n,
        "deals": k,
        "base_rate": float(part["s_base"].mean()) if n else np.nan,
    }
    if n and not np.any(d != d[0]):
        # every pair tied (e.g. the arm changed no game's outcome): no sampling variation to
        # estimate a standard error from — the conservative bounds of the changed deals instead
        tie = tie_interval([row["value"]], [0.0], [k], alpha)
        return row | {
            "lo": float(tie["lo"][0]),
            "hi": float(tie["hi"][0]),
            "se": 0.0,
            "p": float(tie["p"][0]),
        }
    if k < 2:
        return row | {"lo": np.nan, "hi": np.nan, "se": np.nan, "p": np.nan}
    fit = sm.OLS(d, np.ones(n)).fit(
        cov_type="cluster", cov_kwds={"groups": part["cluster"]}, use_t=True
    )
    lo, hi = fit.conf_int(alpha)[0]
    return row | {
        "lo": float(lo),
        "hi": float(hi),
        "se": float(fit.bse[0]),
        "p": float(fit.pvalues[0]),
    }


def _bh(p: np.ndarray) -> np.ndarray:
    from statsmodels.stats.multitest import multipletests

    q = np.full(len(p), np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        q[ok] = multipletests(p[ok], method="fdr_bh")[1]
    return q


# ------------------------------------------------------------------------------------- files


def write_value(folder: str | Path, table: pd.DataFrame) -> Path:
    """Write ``table`` as FOLDER/value.parquet (through a temp file and a rename)."""
    import os

    path = Path(folder) / FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{FILE}.{os.getpid()}.tmp")
    table[VALUE_COLUMNS].to_parquet(tmp, index=False)
    os.replace(tmp, path)
    return path


def read_value(folder: str | Path) -> pd.DataFrame:
    """The value table of a results folder: FOLDER/value/value.parquet, or FOLDER/value.parquet
    when FOLDER is the value folder itself. One-line LabError when absent or malformed."""
    folder = Path(folder)
    found = [p for p in (folder / "value" / FILE, folder / FILE) if p.is_file()]
    if not found:
        raise LabError(f"no {FILE} in {folder} or {folder / 'value'}; `lab value CONFIG` writes it")
    try:
        table = pd.read_parquet(found[0])
    except Exception as e:  # pyarrow raises several types for a damaged file
        raise LabError(f"cannot read the value table: {e}", source=str(found[0])) from None
    missing = [c for c in VALUE_COLUMNS if c not in table.columns]
    if missing:
        raise LabError(
            f"the value table lacks column(s) {', '.join(missing)}", source=str(found[0])
        )
    return table[VALUE_COLUMNS]
