"""Balance statistics over a run's records: per variant, per army, per card, paired comparisons.

Owns the public API the report, the notebooks and designers use — ``load`` a results folder
(either layout of docs/records.md), then tables that all follow one convention: a rate ``x`` comes
with ``x_lo``/``x_hi`` (95% interval) and ``x_n`` (the games it counts), thin cells are marked,
and every table takes ``by`` (games columns to split by, e.g. ``("variant", "tier")``). Statistics
read records only: nothing here simulates. Definitions are in docs/stats.md.
"""

from lab.stats.abilities import ability_table, pool_abilities
from lab.stats.armies import army_table, bradley_terry, matchup_matrix, matchup_table
from lab.stats.cards import card_table, card_view
from lab.stats.intervals import (ALPHA, MIN_GAMES, bh, diff_interval, mean_interval, rate,
                                 wilson)
from lab.stats.paired import compare_variants, pair_games, swap_effect, what_moved
from lab.stats.records import Records, load
from lab.stats.skill import skill_split, tier_order
from lab.stats.variants import end_reason_table, length_values, variant_table

__all__ = [
    "ALPHA", "MIN_GAMES", "Records", "ability_table", "army_table", "bh", "bradley_terry",
    "card_table", "card_view", "compare_variants", "diff_interval", "end_reason_table",
    "length_values", "load", "matchup_matrix", "matchup_table", "mean_interval", "pair_games",
    "pool_abilities", "rate", "skill_split", "swap_effect", "tier_order", "variant_table",
    "what_moved", "wilson",
]
