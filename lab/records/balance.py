"""The result file of ``lab balance`` (``balance.json`` in a results folder's ``balance/``):
its name, its format version and its reader. ``lab.design.balance`` writes it; the report and
the web app read it here, never through the search's module."""

from __future__ import annotations

import json
from pathlib import Path

from lab.errors import LabError

RESULT = "balance.json"
FORMAT = 2  # balance.json: several tiers, selection and fresh deals


def read_result(folder: str | Path) -> dict:
    """The balance result of a results folder: FOLDER/balance/balance.json or
    FOLDER/balance.json. One-line LabError when absent or unreadable."""
    folder = Path(folder)
    found = [p for p in (folder / "balance" / RESULT, folder / RESULT) if p.is_file()]
    if not found:
        raise LabError(
            f"no {RESULT} in {folder} or {folder / 'balance'}; `lab balance CONFIG` writes it"
        )
    try:
        result = json.loads(found[0].read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise LabError(f"cannot read the balance result: {e}", source=str(found[0])) from None
    if not isinstance(result, dict) or result.get("format") != FORMAT:
        raise LabError(
            "this balance result was written by an earlier version of the lab (one "
            "tier, proposals reported on the deals that chose them); run `lab "
            "balance` again to get proposals measured on fresh deals at every tier",
            source=str(found[0]),
        )
    return result
