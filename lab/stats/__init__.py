"""Balance statistics over a run's records: per variant, per army, per card, paired comparisons.

Owns the public API the report, the notebooks and designers use — ``load`` a results folder
(either layout of docs/records.md), then tables that all follow one convention: a rate ``x`` comes
with ``x_lo``/``x_hi`` (95% interval, errors clustered by deal) and ``x_n`` (the games it counts),
thin cells are marked (never flagged), and every table takes ``by`` (games columns to split by;
``("variant", "tier")`` by default — a table that pools tiers says so in its ``tier`` column).
Causal card value (``opening_hand_effect``, ``read_value``, ``card_value``) is kept apart from the
observational 17lands metrics (``card_table``). Statistics read records only: nothing here
simulates. Definitions are in docs/stats.md.
"""

from lab.stats.abilities import ability_table, pool_abilities
from lab.stats.armies import BAND, army_table, band_of, bradley_terry, matchup_matrix, matchup_table
from lab.stats.cards import card_table, card_view, draw_bias
from lab.stats.causal import card_value, opening_hand_effect, read_value
from lab.stats.intervals import ALPHA, MIN_GAMES, bh, rate, wilson
from lab.stats.paired import (
    compare_variants,
    pair_games,
    reference_variant,
    swap_effect,
    what_moved,
)
from lab.stats.records import Records, load
from lab.stats.skill import TierStability, skill_split, tier_order, tier_stability
from lab.stats.variants import end_reason_table, first_player_edge, length_values, variant_table

__all__ = [
    "ALPHA",
    "BAND",
    "MIN_GAMES",
    "Records",
    "TierStability",
    "ability_table",
    "army_table",
    "band_of",
    "bh",
    "bradley_terry",
    "card_table",
    "card_value",
    "card_view",
    "compare_variants",
    "draw_bias",
    "end_reason_table",
    "first_player_edge",
    "length_values",
    "load",
    "matchup_matrix",
    "matchup_table",
    "opening_hand_effect",
    "pair_games",
    "pool_abilities",
    "rate",
    "read_value",
    "reference_variant",
    "skill_split",
    "swap_effect",
    "tier_order",
    "tier_stability",
    "variant_table",
    "what_moved",
    "wilson",
]
