"""Dead and rare abilities: every ability of the pool, how often it held and how often it acted.

Owns: ``ability_table`` — one row per card × ability of the game's card pool (``GameEntry.card_pool``) (× any ``by`` group):
``decks`` (seat-games whose deck held the card), ``held`` (seat-games where it reached the hand —
opening, drawn or gained — or otherwise acted), ``fired`` (seat-games where this ability changed
the state at least once: ``triggers`` for a one-ability card, the ability's entry of the
``triggers_by_ability`` JSON for a card with two or more), ``fired_rate`` = fired / held with a
Wilson interval on the effective number of games (errors clustered by deal: the seat-games of one
deal share the army's deck order), ``triggers`` (the total count) and a ``status``:

- ``no effect`` — the ability has no effect rows (宰相殿の空弁当): listed, never flagged;
- ``not in run`` — no deck of the run (or group) held the card; ``not held`` — decks held it but
  it never reached a hand: neither is evidence about the ability, neither is flagged;
- ``never`` — held but never acted; ``rare`` — acted in under ``rare`` (1%) of the games that held
  the card: both ``flag`` = True, the design bugs the lab surfaces on its own — unless the row is
  ``thin`` (held in fewer than ``min_games`` games): thin rows keep their status and are never
  flagged;
- ``ok`` otherwise. Games of every outcome count, draws included. Per variant and tier by
  default (``by``). Reads records only.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from lab.errors import LabError
from lab.stats.cards import card_flags
from lab.stats.clustered import CLUSTER, clustered_rate
from lab.stats.intervals import ALPHA, MIN_GAMES
from lab.stats.records import as_records
from lab.stats.views import BY, CARD_COUNTS, card_rows, group_codes, group_columns, label_pooled

RARE = 0.01
STATUS_ORDER = ("never", "rare", "ok", "not held", "not in run", "no effect")


def pool_abilities(pool=None) -> pd.DataFrame:
    """Every (card, ability) of the pool: card, card_id, ability_id, ability (printed name),
    effects (effect rows), n_abilities (of the card)."""
    if pool is None:
        from lab.games import get

        pool = get(None).card_pool()  # the default game's cards
    rows = [
        (c.name, c.id, a.id, a.name, len(a.rows), len(c.abilities))
        for c in pool
        for a in c.abilities
    ]
    return pd.DataFrame(
        rows, columns=["card", "card_id", "ability_id", "ability", "effects", "n_abilities"]
    )


def _fired_counts(m: pd.DataFrame, source: str) -> np.ndarray:
    """Per exploded row (a cards row × one of its abilities): that ability's trigger count."""
    counts = m["triggers"].to_numpy().astype(np.int64).copy()
    multi = (m["n_abilities"] > 1).to_numpy()
    if not multi.any():
        return counts
    sub = m.loc[multi, ["card", "ability_id", "triggers", "triggers_by_ability"]]
    parsed: dict[str, dict] = {}
    for s in pd.unique(sub["triggers_by_ability"]):
        try:
            d = json.loads(s) if s.strip() else {}
        except json.JSONDecodeError as e:
            raise LabError(
                f"cards column \"triggers_by_ability\" holds {s!r}, not a JSON object "
                f"{{ability id: count}} ({e})",
                source=source,
            ) from None
        if not isinstance(d, dict):
            raise LabError(
                f"cards column \"triggers_by_ability\" holds {s!r}; expected a JSON "
                "object {ability id: count}",
                source=source,
            )
        parsed[s] = d
    known = m.loc[multi].groupby("card")["ability_id"].agg(set).to_dict()
    for s, d in parsed.items():
        cards = pd.unique(sub.loc[sub["triggers_by_ability"] == s, "card"])
        for card in cards:
            unknown = set(d) - known[card]
            if unknown:
                raise LabError(
                    f"triggers_by_ability of {card} names ability id(s) "
                    f"{', '.join(sorted(unknown))}; {card}'s abilities are "
                    f"{', '.join(sorted(known[card]))}",
                    source=source,
                )
    vals = [
        int(parsed[s].get(aid, 0)) for s, aid in zip(sub["triggers_by_ability"], sub["ability_id"])
    ]
    unattributed = (sub["triggers"].to_numpy() > 0) & np.array(
        [not parsed[s] for s in sub["triggers_by_ability"]]
    )
    if unattributed.any():
        card = sub.loc[unattributed, "card"].iloc[0]
        raise LabError(
            f"{card} has several abilities and triggers > 0 but an empty "
            "triggers_by_ability; the run must record which ability acted",
            source=source,
        )
    counts[multi] = vals
    return counts


def ability_table(
    records,
    by=BY,
    *,
    pool=None,
    rare: float = RARE,
    min_games: int = MIN_GAMES,
    alpha: float = ALPHA,
) -> pd.DataFrame:
    """The dead/rare-ability table described in the module docstring."""
    rec = as_records(records)
    keys = group_columns(rec.games, by)
    cards = rec.require_cards()
    source = str(rec.path) if rec.path else "cards"
    ab = pool_abilities(pool)
    rows = card_rows(cards, rec.games, keys, columns=(*CARD_COUNTS, "triggers_by_ability"))
    rows = rows.assign(held=card_flags(rows)["held"])
    m = rows[[*keys, CLUSTER, "card", "army", "triggers", "triggers_by_ability", "held"]].merge(
        ab[["card", "ability_id", "n_abilities"]], on="card", how="inner"
    )
    m["count"] = _fired_counts(m, source)
    m["fired"] = m["held"] & (m["count"] > 0)
    gk = [*keys, "card", "ability_id"]
    agg = (
        m.groupby(gk, observed=True)
        .agg(
            decks=("held", "size"),
            held=("held", "sum"),
            fired=("fired", "sum"),
            triggers=("count", "sum"),
            armies=("army", lambda a: ", ".join(sorted(pd.unique(a)))),
        )
        .reset_index()
    )
    # fired / held with its interval clustered by deal: a deal gives an army the same deck
    # order in both seat orders (and under every variant and tier), so its seat-games share it
    codes, keyed = group_codes(m, gk)
    keyed = keyed.copy()
    for col, v in clustered_rate(
        "fired_rate", m["fired"], m["held"], codes, m[CLUSTER], len(keyed), alpha
    ).items():
        if col != "fired_rate_n":
            keyed[col] = v
    agg = agg.merge(keyed, on=gk, how="left", validate="one_to_one")

    if keys:
        groups = rec.games[keys].drop_duplicates()
        base = groups.merge(ab, how="cross")
    else:
        base = ab.copy()
    out = base.merge(agg, on=gk, how="left")
    for c in ("decks", "held", "fired", "triggers"):
        out[c] = out[c].fillna(0).astype(np.int64)
    out["armies"] = out["armies"].fillna("")
    status = np.select(
        [
            out["effects"] == 0,
            out["decks"] == 0,
            out["held"] == 0,
            out["fired"] == 0,
            out["fired"] < rare * out["held"],
        ],
        ["no effect", "not in run", "not held", "never", "rare"],
        default="ok",
    )
    out["status"] = status
    out["thin"] = out["held"] < min_games
    out["flag"] = np.isin(status, ("never", "rare")) & ~out["thin"]
    out.loc[out["effects"] == 0, ["fired_rate", "fired_rate_lo", "fired_rate_hi"]] = np.nan
    order = {s: i for i, s in enumerate(STATUS_ORDER)}
    out = (
        out.assign(_o=out["status"].map(order))
        .sort_values([*keys, "_o", "fired_rate", "card"], na_position="last")
        .drop(columns=["_o", "n_abilities"])
    )
    cols = [
        *keys,
        "card",
        "card_id",
        "ability_id",
        "ability",
        "effects",
        "armies",
        "decks",
        "held",
        "fired",
        "fired_rate",
        "fired_rate_lo",
        "fired_rate_hi",
        "triggers",
        "status",
        "flag",
        "thin",
    ]
    return label_pooled(out[cols].reset_index(drop=True), rec.games, keys)
