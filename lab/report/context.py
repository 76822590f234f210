"""What every section of the report reads: one run's records and the ``lab.stats`` tables of it.

Owns: ``Context`` — the records, the run's variants (with their card patch, when the run has
patches) and tiers (weakest first), the reference variant, army names, the thresholds, the
``lab value`` table when the results folder holds one, and each ``lab.stats`` table computed once
on first use — plus the small helpers sections share: display labels and the (variant, tier)
groups in the run's order. It computes no statistic of its own and renders nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import pandas as pd

from lab import stats
from lab.errors import LabError
from lab.stats.armies import army_order


@dataclass
class Context:
    rec: stats.Records
    variants: list[str]
    base: str
    tiers: list[str]  # weakest first
    min_games: int
    alpha: float
    value: pd.DataFrame | None = None
    names: dict = field(default_factory=dict)

    @cached_property
    def game(self):
        """The registered game whose records these are (its manifest names it)."""
        from lab.games import get

        config = self.rec.manifest.get("config") if isinstance(self.rec.manifest, dict) else None
        return get((config or {}).get("game"))

    # ------------------------------------------------------------------------------ labels

    @cached_property
    def patches(self) -> dict[str, str]:
        """Variant → its card patch, when the run has patches other than "base"; else {}."""
        g = self.rec.games
        if "patch" not in g.columns or (g["patch"].astype(str) == "base").all():
            return {}
        return {v: str(p) for v, p in g.groupby("variant", sort=False)["patch"].first().items()}

    def variant(self, v: str) -> str:
        patch = self.patches.get(v, "base")
        return v if patch in ("base", "") or patch in v else f"{v} (patch {patch})"

    def army(self, key: str) -> str:
        name = self.names.get(key)
        return f"{name} ({key})" if name and name != key else key

    def groups(self, df: pd.DataFrame):
        """(variant, tier, rows) for each variant × tier of ``df`` in the run's order."""
        for v in self.variants:
            for t in self.tiers:
                part = df[(df["variant"] == v) & (df["tier"] == t)]
                if len(part):
                    yield v, t, part

    def ordered(self, df: pd.DataFrame, *cols: str, armies: bool = True) -> pd.DataFrame:
        """Rows in variant order, tier order (weakest first), then canonical army order (unless
        ``armies`` is False) and ``cols``."""
        order = {a: i for i, a in enumerate(army_order(df["army"]))} if "army" in df else {}
        rank = {
            "variant": {v: i for i, v in enumerate(self.variants)},
            "tier": {t: i for i, t in enumerate(self.tiers)},
            "army": order,
        }
        first = ("variant", "tier", "army") if armies else ("variant", "tier")
        by = [c for c in first if c in df.columns] + list(cols)
        return df.sort_values(
            by, key=lambda s: s.map(rank[s.name]) if s.name in rank else s, kind="stable"
        )

    # ------------------------------------------------------------------------------ tables

    def _kw(self):
        return {"min_games": self.min_games, "alpha": self.alpha}

    @cached_property
    def variant_table(self):
        return self.ordered(stats.variant_table(self.rec, alpha=self.alpha))

    @cached_property
    def army_table(self):
        return self.ordered(stats.army_table(self.rec, **self._kw()))

    @cached_property
    def bradley_terry(self):
        return stats.bradley_terry(self.rec, alpha=self.alpha)

    @cached_property
    def matchup_table(self):
        return self.ordered(stats.matchup_table(self.rec, **self._kw()))

    @cached_property
    def opening_hand(self):
        return self.ordered(stats.opening_hand_effect(self.rec, **self._kw()))

    @cached_property
    def card_value(self):
        """``lab value``'s rows only: the causes the report names (``attrs["uncovered"]``: the
        groups it has no table for)."""
        return stats.card_value(
            self.rec, self.value, oh=self.opening_hand, opening=False, **self._kw()
        )

    @cached_property
    def value_command(self) -> str:
        """The ``lab value`` command that writes the table this folder lacks."""
        import shlex

        man = self.rec.manifest
        config = man.get("config") if isinstance(man.get("config"), dict) else {}
        source = config.get("source") or "CONFIG"
        missing = {t for _, t in self.card_value.attrs.get("uncovered", [])}
        tiers = []
        for t in config.get("tiers") or []:
            if isinstance(t, dict) and t.get("label") in missing:
                try:
                    a, b = self.game.bot_short(t.get("a")), self.game.bot_short(t.get("b"))
                    tiers.append(a if a == b else t["label"])
                except LabError:  # a manifest of another version: its label still names it
                    tiers.append(t["label"])
        all_tiers = len(tiers) == len(config.get("tiers") or [])
        folder = self.rec.path / "value" if self.rec.path else "RESULTS/value"
        args = [
            "lab",
            "value",
            source,
            *(x for t in ([] if all_tiers else tiers) for x in ("--tier", t)),
            "--out",
            folder,
        ]
        return " ".join(shlex.quote(str(a)) for a in args)

    @cached_property
    def card_table(self):
        return self.ordered(stats.card_table(self.rec, **self._kw()))

    @cached_property
    def draw_bias(self):
        return self.ordered(stats.draw_bias(self.rec, alpha=self.alpha))

    @cached_property
    def abilities(self):
        return stats.ability_table(self.rec, **self._kw())

    @cached_property
    def moved(self) -> dict[str, pd.DataFrame | str]:
        """Other variant → its ``what_moved`` against the base per tier (or why not)."""
        out = {}
        for other in self.variants:
            if other == self.base:
                continue
            try:
                out[other] = stats.what_moved(self.rec, self.base, other, **self._kw())
            except LabError as e:
                out[other] = str(e)
        return out

    @cached_property
    def stability(self):
        return stats.tier_stability(self.rec, order=self.tiers, value=self.value, **self._kw())

    def win_rate(self, variant: str, tier: str, army: str):
        """The army's row of the army table (or None)."""
        at = self.army_table
        row = at[(at["variant"] == variant) & (at["tier"] == tier) & (at["army"] == army)]
        return row.iloc[0] if len(row) else None
