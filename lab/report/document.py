"""A small document model for the report and its two renderings, HTML and Markdown.

Owns: ``Cell`` (a formatted value with its interval and sample size as a note, greyed when thin,
bold when flagged), ``Table``, the block list a report is made of (headings, paragraphs, tables,
figures, collapsible details) and the renderers — one self-contained HTML page (CSS inline,
figures embedded as base64 PNG) or Markdown with the PNG files written beside it. Also the number
formats every table uses (percent, points, means). It computes no statistic.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field
from pathlib import Path

from lab import fmt
from lab.fmt import missing, num, pct

# ------------------------------------------------------------------------------ number formats


def points(x, digits: int = 1) -> str:
    """Points as the pages have always written them: a plain hyphen for minus."""
    return fmt.points(x, digits, minus="-")


@dataclass
class Cell:
    text: str
    note: str = ""  # the interval and sample size, shown smaller
    thin: bool = False  # fewer games than the threshold: greyed
    strong: bool = False  # flagged: bold

    @classmethod
    def rate(cls, row, name: str, min_games: int, strong: bool = False) -> "Cell":
        n = row.get(f"{name}_n")
        note = (
            f"[{pct(row[f'{name}_lo'])}, {pct(row[f'{name}_hi'])}]"
            if not missing(row.get(f"{name}_lo"))
            else ""
        )
        n_txt = f"n={int(n):,}" if not missing(n) else ""
        return cls(
            pct(row[name]),
            " ".join(s for s in (note, n_txt) if s),
            thin=missing(n) or n < min_games,
            strong=strong,
        )

    @classmethod
    def diff(cls, row, name: str, n=None, thin: bool = False, strong: bool = False) -> "Cell":
        note = f"[{points(row[f'{name}_lo'])}, {points(row[f'{name}_hi'])}]"
        if n is not None:
            note += f" n={int(n):,}"
        return cls(points(row[name]), note, thin=thin, strong=strong)

    @classmethod
    def change(
        cls, value, lo, hi, note: str = "", thin: bool = False, strong: bool = False
    ) -> "Cell":
        """A difference in percentage points with its interval (and an optional note)."""
        text = f"[{points(lo)}, {points(hi)}]" + (f" {note}" if note else "")
        return cls(points(value), text, thin=thin, strong=strong)

    @classmethod
    def mean(cls, row, name: str, digits: int = 1) -> "Cell":
        note = f"[{num(row[f'{name}_lo'], digits)}, {num(row[f'{name}_hi'], digits)}]"
        if f"{name}_n" in row:
            note += f" n={int(row[f'{name}_n']):,}"
        return cls(num(row[name], digits), note)


@dataclass
class Table:
    columns: list[str]
    rows: list[list]  # Cell or plain values
    caption: str = ""


@dataclass
class Figure:
    name: str  # file stem for the Markdown twin
    png: bytes
    caption: str = ""


@dataclass
class Details:
    summary: str
    blocks: list = field(default_factory=list)


@dataclass
class Heading:
    text: str
    level: int = 2


@dataclass
class Para:
    text: str


@dataclass
class Code:
    """Text shown verbatim, ready to copy (e.g. the [[patch]] TOML of a balance proposal)."""

    text: str
    language: str = ""


def _cell(v) -> Cell:
    return v if isinstance(v, Cell) else Cell("—" if missing(v) else str(v))


def slug(text: str) -> str:
    s = re.sub(r"[^0-9a-zA-Z]+", "-", text.lower()).strip("-")
    return s or "section"


# --------------------------------------------------------------------------------------- HTML

CSS = """
body{font-family:system-ui,-apple-system,"Hiragino Sans","Noto Sans CJK JP","IPAexGothic",
sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #3b6ea8;padding-bottom:.2em}
h2{margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:right;vertical-align:top}
th{background:#f3f5f8;position:sticky;top:0}
td:first-child,th:first-child,th.text{text-align:left}
td.text{text-align:left;min-width:4em}
small{color:#666;display:block;font-size:11px}
.nobr{white-space:nowrap}
td.thin,td.thin small{color:#aaa;background:#fafafa}
td.strong{font-weight:bold}
caption{caption-side:bottom;text-align:left;color:#666;font-size:12px;padding-top:4px}
figure{margin:1em 0}figcaption{color:#555;font-size:13px}
img{max-width:100%}
details{margin:.5em 0 1em}summary{cursor:pointer;color:#3b6ea8}
pre{background:#f6f8fa;padding:.6em;overflow-x:auto;font-size:12px}
.scroll{overflow-x:auto;max-width:100%}
"""


# a text cell may wrap — also inside a long id without spaces, after one of these characters
# (second_edition+walls=10+hand_cap=7, search(400)-vs-heuristic) — so a table with long variant
# ids, tier labels or card lists still fits the page at 1280 px instead of scrolling sideways
_BREAK_AFTER = re.compile(r"(?<=\S)([+=,:/)])(?=\S)")  # not in "+9.1" (a signed number)


def _wrappable(text: str) -> str:
    return _BREAK_AFTER.sub(r"\1<wbr>", html.escape(text))


def _note(text: str) -> str:
    """A cell's note wraps between words, never inside an interval or a count ([+8.2, +25.8],
    n=1,200)."""
    return re.sub(r"(\[[^\]]*\]|\S+=\S+)", r'<span class="nobr">\1</span>', html.escape(text))


def _is_number(text: str) -> bool:
    return bool(re.match(r"^[-+]?[\d.,]+%?$|^—$", text))


def _html_table(t: Table) -> str:
    out = ['<div class="scroll"><table>']
    if t.caption:
        out.append(f"<caption>{html.escape(t.caption)}</caption>")
    # a column of text is headed on the left, as its cells are
    texts = [
        any(not _is_number(_cell(r[k]).text) for r in t.rows if k < len(r))
        for k in range(len(t.columns))
    ]
    heads = [
        ('<th class="text">' if texts[k] else "<th>") + _wrappable(c) + "</th>"
        for k, c in enumerate(t.columns)
    ]
    out.append("<thead><tr>" + "".join(heads) + "</tr></thead><tbody>")
    for row in t.rows:
        tds = []
        for v in row:
            c = _cell(v)
            cls = [k for k, on in (("thin", c.thin), ("strong", c.strong)) if on]
            if not _is_number(c.text):
                cls.append("text")
            attr = f' class="{" ".join(cls)}"' if cls else ""
            note = f"<small>{_note(c.note)}</small>" if c.note else ""
            tds.append(f"<td{attr}>{_wrappable(c.text)}{note}</td>")
        out.append("<tr>" + "".join(tds) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def _html_blocks(blocks) -> str:
    parts = []
    for b in blocks:
        if isinstance(b, Heading):
            parts.append(f'<h{b.level} id="{slug(b.text)}">{html.escape(b.text)}</h{b.level}>')
        elif isinstance(b, Para):
            parts.append(f"<p>{html.escape(b.text)}</p>")
        elif isinstance(b, Code):
            parts.append(f"<pre><code>{html.escape(b.text)}</code></pre>")
        elif isinstance(b, Table):
            parts.append(_html_table(b))
        elif isinstance(b, Figure):
            data = base64.b64encode(b.png).decode("ascii")
            parts.append(
                f'<figure><img alt="{html.escape(b.caption or b.name)}" '
                f'src="data:image/png;base64,{data}">'
                f"<figcaption>{html.escape(b.caption)}</figcaption></figure>"
            )
        elif isinstance(b, Details):
            parts.append(
                f"<details><summary>{html.escape(b.summary)}</summary>"
                f"{_html_blocks(b.blocks)}</details>"
            )
        else:
            raise TypeError(type(b))
    return "\n".join(parts)


def render_html(title: str, blocks) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"ja\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>\n{_html_blocks(blocks)}\n</body></html>\n"
    )


# ----------------------------------------------------------------------------------- Markdown


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _md_table(t: Table) -> str:
    lines = [
        "| " + " | ".join(_md_escape(c) for c in t.columns) + " |",
        "|" + "|".join("---" for _ in t.columns) + "|",
    ]
    for row in t.rows:
        cells = []
        for v in row:
            c = _cell(v)
            text = c.text
            if c.strong:
                text = f"**{text}**"
            if c.thin:
                text = f"*{text}*†"
            if c.note:
                text += f" <sub>{c.note}</sub>"
            cells.append(_md_escape(text))
        lines.append("| " + " | ".join(cells) + " |")
    if t.caption:
        lines.append("")
        lines.append(f"*{_md_escape(t.caption)}*")
    return "\n".join(lines)


def _md_blocks(blocks, fig_dir: Path, rel: str) -> list[str]:
    parts = []
    for b in blocks:
        if isinstance(b, Heading):
            parts.append("#" * b.level + " " + b.text)
        elif isinstance(b, Para):
            parts.append(b.text)
        elif isinstance(b, Code):
            parts.append(f"```{b.language}\n{b.text.rstrip()}\n```")
        elif isinstance(b, Table):
            parts.append(_md_table(b))
        elif isinstance(b, Figure):
            fig_dir.mkdir(parents=True, exist_ok=True)
            name = re.sub(r"[^0-9A-Za-z_.-]+", "-", b.name).strip("-") or "figure"
            (fig_dir / f"{name}.png").write_bytes(b.png)
            parts.append(f"![{b.caption or b.name}]({rel}/{name}.png)")
            if b.caption:
                parts.append(f"*{b.caption}*")
        elif isinstance(b, Details):
            parts.append(f"<details><summary>{html.escape(b.summary)}</summary>\n")
            parts.extend(_md_blocks(b.blocks, fig_dir, rel))
            parts.append("</details>")
        else:
            raise TypeError(type(b))
    return parts


def render_markdown(title: str, blocks, fig_dir: Path, rel: str) -> str:
    return "\n\n".join([f"# {title}", *_md_blocks(blocks, fig_dir, rel)]) + "\n"
