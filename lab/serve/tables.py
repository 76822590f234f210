"""The CLI's rich tables as plain data a page renders as HTML tables.

``lab run``, ``lab value`` and ``lab balance`` print rich ``Table`` objects built by the layers
that own them (``lab.games.daitenka.summary``, ``lab.design.value``, ``lab.design.balance``); the page shows
those very tables, converted here cell by cell (text, bold, dimmed), so the page and the terminal
cannot disagree. Nothing here computes a number.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Cell:
    text: str
    strong: bool = False
    dim: bool = False


@dataclass
class PageTable:
    title: str
    columns: list[str]
    right: list[bool]  # right-aligned columns (numbers)
    rows: list[list[Cell]] = field(default_factory=list)
    caption: str = ""


def _plain(x) -> str:
    from rich.text import Text

    if x is None:
        return ""
    if isinstance(x, Text):
        return x.plain
    if isinstance(x, str):
        try:
            return Text.from_markup(x).plain
        except Exception:  # not rich markup after all: shown as written
            return x
    return str(x)


def _styles(style) -> tuple[bool, bool]:
    s = str(style or "")
    return "bold" in s, ("dim" in s or "italic" in s)


def from_rich(table) -> PageTable:
    """A rich ``Table`` as a ``PageTable`` (a renderable that is not a table becomes a
    one-cell table holding its text)."""
    from rich.table import Table
    from rich.text import Text

    if not isinstance(table, Table):
        return PageTable(
            "",
            [""],
            [False],
            [[Cell(_plain(table) if isinstance(table, (str, Text)) else str(table))]],
        )
    cols = table.columns
    out = PageTable(
        _plain(table.title),
        [_plain(c.header) for c in cols],
        [c.justify == "right" for c in cols],
        caption=_plain(table.caption),
    )
    cells = [list(c.cells) for c in cols]
    for i, row in enumerate(table.rows):
        row_strong, row_dim = _styles(row.style)
        line = []
        for k in range(len(cols)):
            value = cells[k][i] if i < len(cells[k]) else ""
            strong, dim = _styles(value.style if isinstance(value, Text) else None)
            line.append(Cell(_plain(value), strong or row_strong, dim or row_dim))
        out.rows.append(line)
    return out


def from_rows(
    title: str, columns: list[str], rows: list[list], caption: str = "", right_from: int = 1
) -> PageTable:
    """A table of text cells (``lab.report.balance.section``'s blocks, the compare page)."""
    return PageTable(
        title,
        list(columns),
        [k >= right_from for k in range(len(columns))],
        [[c if isinstance(c, Cell) else Cell(str(c)) for c in r] for r in rows],
        caption,
    )


__all__ = ["Cell", "PageTable", "from_rich", "from_rows"]
