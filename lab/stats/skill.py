"""Skill split: how a per-army or per-card number changes from weaker to stronger bot tiers.

Owns: ``tier_order`` — the order of the run's tiers from weakest to strongest, either given by the
caller (checked against the tiers the run has) or found from the data: each bot label's win rate
in decisive games against *other* bot labels, a tier ranking by the mean over its two bots; bots
that never met another bot rank by kind (random < heuristic < search, more simulations stronger),
ties keep the run's order — and ``skill_split``, which turns any table computed with ``by``
including ``tier`` (``army_table``, ``card_table``, ``bradley_terry``, ``matchup_table``) into one
row per key with the value at each tier and ``skill_sensitivity`` = value at the strongest tier −
value at the weakest, with a 95% interval: Newcombe's for a rate (reconstructing its counts from
``x`` and ``x_n``), else a normal approximation from the two tiers' intervals (for IWD, ratings,
means), and ``skill_p``/``skill_q``/``skill_flag`` (the matching test, Benjamini–Hochberg over the
table's non-thin rows). Reads records only for the order.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from scipy import stats as sps

from lab.errors import LabError
from lab.stats.intervals import ALPHA, MIN_GAMES, bh, diff_interval, diff_pvalue
from lab.stats.records import as_records

KIND_RANK = {"random": 0, "heuristic": 1, "search": 2}
NORMAL_METRICS = {"iwd", "rating", "leader_turns", "battles", "wall_margin", "change"}
_Z = 1.959963984540054


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
            raise LabError(f"tier order names {', '.join(unknown)}, not a tier of this run "
                           f"(allowed: {', '.join(tiers)})")
        if len(set(order)) != len(order):
            raise LabError("tier order repeats a tier")
        return order
    strength: dict[str, float] = {}
    if "bot_a" in g.columns and "bot_b" in g.columns:
        cross = g[(g["bot_a"] != g["bot_b"]) & (g["winner"] != "draw")]
        wins = pd.concat([cross.loc[cross["winner"] == "A", "bot_a"],
                          cross.loc[cross["winner"] == "B", "bot_b"]]).value_counts()
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


def _keys(table: pd.DataFrame, tier: str) -> list[str]:
    return [c for c in table.columns if c != tier
            and not pd.api.types.is_numeric_dtype(table[c])
            and not pd.api.types.is_bool_dtype(table[c])]


def skill_split(table: pd.DataFrame, value: str, *, order=None, records=None,
                tier: str = "tier", method: str = "auto", min_games: int = MIN_GAMES,
                alpha: float = ALPHA) -> pd.DataFrame:
    """One row per key: ``value`` at each tier (``value@tier``, ``value_n@tier``) and
    ``skill_sensitivity`` (strongest − weakest tier) with ``_lo``/``_hi``; ``thin`` when either
    end counts fewer than ``min_games``. Give ``order`` (weakest first) or ``records``."""
    for col in (tier, value):
        if col not in table.columns:
            raise LabError(f"skill_split needs column \"{col}\"; compute the table with "
                           f"by=(…, \"{tier}\") (columns: {', '.join(map(str, table.columns))})")
    if order is None:
        if records is None:
            raise LabError("skill_split needs the tier order: give order=[weakest, …, strongest] "
                           "or records= to rank the tiers by their bots' win rates")
        order = tier_order(records)
    else:
        order = list(order)
        unknown = [t for t in order if t not in set(table[tier])]
        if unknown:
            raise LabError(f"tier order names {', '.join(unknown)}, not in the table "
                           f"(allowed: {', '.join(map(str, pd.unique(table[tier])))})")
    order = [t for t in order if t in set(table[tier])]
    if len(order) < 2:
        raise LabError(f"a skill split needs two tiers; the table has "
                       f"{', '.join(map(str, pd.unique(table[tier])))}")
    if method not in ("auto", "newcombe", "normal"):
        raise LabError(f"method \"{method}\" is not one of: auto, newcombe, normal")
    keys = _keys(table, tier)
    extra = [c for c in (f"{value}_n", f"{value}_lo", f"{value}_hi") if c in table.columns]
    part = table[table[tier].isin(order)]
    if part.duplicated([*keys, tier]).any():
        raise LabError(f"the table repeats a row for one key and tier; key columns: "
                       f"{', '.join(keys)} (compute it with by=(…, \"{tier}\"))")
    wide = part.set_index([*keys, tier])[[value, *extra]].unstack(tier)
    out = pd.DataFrame(index=wide.index)
    for t in order:
        out[f"{value}@{t}"] = wide[(value, t)]
        if f"{value}_n" in table.columns:
            out[f"{value}_n@{t}"] = wide[(f"{value}_n", t)]
    weak, strong = order[0], order[-1]
    v0, v1 = wide[(value, weak)].to_numpy(float), wide[(value, strong)].to_numpy(float)
    out["skill_sensitivity"] = v1 - v0
    if method == "auto":
        method = ("newcombe" if f"{value}_n" in table.columns and value not in NORMAL_METRICS
                  else "normal")
    if method == "newcombe":
        n0 = wide[(f"{value}_n", weak)].to_numpy(float)
        n1 = wide[(f"{value}_n", strong)].to_numpy(float)
        k0, k1 = np.round(v0 * n0), np.round(v1 * n1)
        lo, hi = diff_interval(k1, n1, k0, n0, alpha)
        p = diff_pvalue(k1, n1, k0, n0, 0.0)
    else:
        if f"{value}_lo" not in table.columns:
            raise LabError(f"the normal interval needs \"{value}_lo\"/\"{value}_hi\" columns")
        se0 = (wide[(f"{value}_hi", weak)] - wide[(f"{value}_lo", weak)]).to_numpy(float) / (2 * _Z)
        se1 = (wide[(f"{value}_hi", strong)]
               - wide[(f"{value}_lo", strong)]).to_numpy(float) / (2 * _Z)
        se = np.sqrt(se0 ** 2 + se1 ** 2)
        lo, hi = v1 - v0 - _Z * se, v1 - v0 + _Z * se
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(se > 0, 2 * sps.norm.sf(np.abs(v1 - v0) / se), np.nan)
    out["skill_sensitivity_lo"], out["skill_sensitivity_hi"] = lo, hi
    out["weaker"], out["stronger"] = weak, strong
    if f"{value}_n" in table.columns:
        n_min = np.fmin(wide[(f"{value}_n", weak)].to_numpy(float),
                        wide[(f"{value}_n", strong)].to_numpy(float))
        out["thin"] = ~(n_min >= min_games)
        p = np.where(out["thin"], np.nan, p)
    out["skill_p"] = p
    out["skill_q"], out["skill_flag"] = bh(p, alpha)
    return out.reset_index()
