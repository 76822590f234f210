"""Hand-built record frames for the statistics tests: give the columns a test is about, the rest
take neutral defaults, so each test's known answer stays readable."""

from __future__ import annotations

import pandas as pd

GAME_DEFAULTS = {
    "variant": "v",
    "army_a": "oda",
    "army_b": "takeda",
    "tier": "t",
    "deal": 0,
    "swapped": False,
    "first": "A",
    "winner": "A",
    "end_reason": "castle_fell",
    "leader_turns": 10,
    "battles": 8,
    "walls_a": 3,
    "walls_b": 0,
    "max_deficit_a": 0,
    "max_deficit_b": 0,
}
CARD_DEFAULTS = {
    "player": "A",
    "army": "oda",
    "card": "足軽7",
    "copies": 1,
    "opening": 0,
    "drawn": 0,
    "gained": 0,
    "played": 0,
    "won": 0,
    "triggers": 0,
    "triggers_by_ability": "",
}


def games_frame(rows: list[dict], start_id: int = 1) -> pd.DataFrame:
    """One game per dict; game_id numbered from ``start_id`` unless given."""
    out = []
    for i, r in enumerate(rows):
        row = {"game_id": start_id + i, **GAME_DEFAULTS, **r}
        out.append(row)
    return pd.DataFrame(out)


def cards_frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame([{**CARD_DEFAULTS, **r} for r in rows])
