"""The Rumble Nation map: the eleven areas of RN1 and which of them touch, read from a TOML data
file and validated on load.

Owns: the canonical area names and their order (RN1; the order is the area index everywhere:
records, the context array, the default token layout of scenarios), reading ``map.toml`` and
refusing a bad one with one line (unknown area, missing area, one-sided or self edge, repeated
neighbour). It plays nothing and knows no rule beyond "areas touch".
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from lab.errors import LabError, closest, read_toml

# RN1: the eleven areas, each named by its castle, north to south.
AREAS = (
    "徳山館",
    "米沢城",
    "春日山城",
    "小田原城",
    "躑躅ヶ崎館",
    "清洲城",
    "京",
    "吉田郡山城",
    "岡豊城",
    "臼杵城",
    "首里城",
)
DEFAULT_MAP = Path(__file__).with_name("map.toml")


@dataclass(frozen=True)
class Board:
    name: str
    path: str
    adjacent: tuple[tuple[int, ...], ...]  # per area index, its neighbours' indices (ascending)

    def masks(self) -> list[int]:
        return [sum(1 << b for b in nbrs) for nbrs in self.adjacent]


def area_index(name: str, source: str | None = None, what: str = "area") -> int:
    """The RN1 index of an area named by its castle; a one-line error with the closest names."""
    if name in AREAS:
        return AREAS.index(name)
    hint = closest(str(name), AREAS)
    raise LabError(
        f"unknown {what} \"{name}\""
        + (f"; did you mean {', '.join(hint)}?" if hint else f"; areas: {', '.join(AREAS)}"),
        source=source,
    )


def load_map(path: str | Path | None = None) -> Board:
    """The map at ``path`` (default: the packaged archipelago map), validated."""
    p = Path(path) if path not in (None, "", "default") else DEFAULT_MAP
    try:
        stamp = os.stat(p).st_mtime_ns
    except OSError:
        stamp = 0  # read_toml reports the missing file
    return _load(str(p), stamp)


@lru_cache(maxsize=16)
def _load(src: str, _stamp: int) -> Board:
    data = read_toml(src, "a map .toml file")
    unknown = set(data) - {"name", "adjacent"}
    if unknown:
        raise LabError(
            f"unknown key(s) {', '.join(sorted(unknown))}; a map has `name` and "
            "an [adjacent] table",
            source=src,
        )
    adj = data.get("adjacent")
    if not isinstance(adj, dict):
        raise LabError(
            "missing [adjacent] table: one line per area, `\"京\" = [\"清洲城\", …]`", source=src
        )
    nbrs: list[list[int]] = [[] for _ in AREAS]
    for key, value in adj.items():
        a = area_index(key, src, "area in [adjacent]")
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise LabError(f"[adjacent] \"{key}\" must be a list of area names", source=src)
        for v in value:
            b = area_index(v, src, f"area in [adjacent] \"{key}\"")
            if b == a:
                raise LabError(f"[adjacent] \"{key}\" lists itself", source=src)
            if b in nbrs[a]:
                raise LabError(f"[adjacent] \"{key}\" lists \"{v}\" twice", source=src)
            nbrs[a].append(b)
    missing = [AREAS[a] for a in range(len(AREAS)) if AREAS[a] not in adj]
    if missing:
        raise LabError(
            f"[adjacent] has no line for {', '.join(missing)}; every area of RN1 "
            "needs one (an empty list for an area that touches none)",
            source=src,
        )
    for a, row in enumerate(nbrs):
        for b in row:
            if a not in nbrs[b]:
                raise LabError(
                    f"[adjacent] \"{AREAS[a]}\" lists \"{AREAS[b]}\" but \"{AREAS[b]}\" "
                    f"does not list \"{AREAS[a]}\"; an edge is listed from both ends",
                    source=src,
                )
    name = data.get("name", Path(src).stem)
    if not isinstance(name, str) or not name:
        raise LabError("name must be a non-empty string", source=src)
    return Board(name, src, tuple(tuple(sorted(row)) for row in nbrs))
