"""An experiment's rule variants: presets × the product of the ``[grid]`` toggles, with the
``[overrides]`` applied to every one — the same for every game.

A game hands its presets (name → rule set) and its toggle names; its rule sets provide
``with_overrides(toggles, source=…)`` and an ``id``. Errors are one line naming the key.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping

from lab.errors import did_you_mean, LabError


def check_grid(
    grid: dict, overrides: dict, toggles, src: str, example: Callable[[str], str]
) -> None:
    """Each ``[grid]`` entry a known toggle with a non-empty list, not also in ``[overrides]``;
    ``example(key)`` gives the values a message suggests (``"6, 7, 10"``)."""
    for key, values in grid.items():
        if key not in toggles:
            did = did_you_mean(key, toggles)
            raise LabError(
                f"[grid] unknown rules key \"{key}\"; {did}valid keys: {', '.join(toggles)}",
                source=src,
            )
        if not isinstance(values, list) or not values:
            raise LabError(
                f"[grid] {key} = {values!r}: a grid entry is a non-empty list of "
                f"values, e.g. {key} = [{example(key)}]",
                source=src,
            )
        if key in overrides:
            raise LabError(
                f"\"{key}\" is in both [overrides] and [grid]; keep it in one", source=src
            )


def expand_grid(presets: Mapping, names, overrides: dict, grid: dict, src: str) -> tuple:
    """The rule sets of presets ``names`` × the grid's product, in that order; two entries that
    give the same rule set are refused (one line naming both)."""
    variants = []
    seen: dict[str, str] = {}
    for preset in names:
        base = presets[preset].with_overrides(overrides, source=f"{src} [overrides]")
        for combo in itertools.product(*grid.values()):
            toggles = dict(zip(grid, combo))
            where = f"variant rules = \"{preset}\"" + "".join(
                f", {k} = {v!r}" for k, v in toggles.items()
            )
            rs = base.with_overrides(toggles, source=f"{src} {where}")
            if rs.id in seen:
                raise LabError(
                    f"two entries give the same rule set {rs.id} ({seen[rs.id]} and "
                    f"{where}); remove one",
                    source=src,
                )
            seen[rs.id] = where
            variants.append(rs)
    return tuple(variants)
