"""What ``lab balance`` reads beside the game's edit catalogue: which cards a ``lab value``
table ranks most responsible (the catalogue's ``keep``), and a hash of a catalogue (part of a
search's fingerprint). The edits themselves are the game's (``GameEntry.card_design()``:
``edit_catalogue``, ``patch_toml``). Plays nothing.
"""

from __future__ import annotations

import hashlib

TOP_CARDS = 5  # cards per army kept from a value table


def digest(moves) -> str:
    """A hash of the catalogue (part of a search's fingerprint)."""
    return hashlib.sha256("|".join(m.key for m in moves).encode()).hexdigest()[:16]


# ------------------------------------------------------------------------------- value ranking


def responsible(
    table, variant: str, tier: str, armies, top: int = TOP_CARDS
) -> set[tuple[str, str]] | None:
    """(army, card id) of the ``top`` cards of each army with the largest |value| (either
    contrast) in a ``lab value`` table of this rule set and tier; None when the table holds
    no row for them."""
    rows = table[
        (table["variant"] == variant) & (table["tier"] == tier) & table["army"].isin(list(armies))
    ]
    if rows.empty:
        return None
    size = (
        rows.assign(size=rows["value"].abs())
        .groupby(["army", "card_id"], sort=False)["size"]
        .max()
        .reset_index()
    )
    out = set()
    for army, part in size.groupby("army", sort=False):
        ranked = part.sort_values(["size", "card_id"], ascending=[False, True], kind="stable")
        out |= {(army, c) for c in ranked["card_id"].head(top)}
    return out
