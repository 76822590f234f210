"""Where a report page goes and how it is written, for every game's report: one self-contained
HTML file, or Markdown with its PNG figures in ``<page stem>_files/`` beside it."""

from __future__ import annotations

from pathlib import Path

from lab.errors import LabError
from lab.report.document import render_html, render_markdown

FORMATS = ("html", "md")


def check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise LabError(f"format \"{fmt}\" is not one of: {', '.join(FORMATS)}")


def page_path(results_dir, out, fmt: str) -> Path:
    """Where a report of ``results_dir`` is written: ``out`` (a file, or a folder that gets
    ``report.FMT``), by default the results folder."""
    check_format(fmt)
    results = Path(results_dir)
    if out is None:
        return results / f"report.{fmt}"
    out = Path(out)
    if out.is_dir() or (not out.suffix and not out.exists()):
        return out / f"report.{fmt}"
    return out


def write_page(results_dir, out, fmt: str, title: str, blocks: list) -> Path:
    """Render ``blocks`` under ``title`` and write the page; returns its path."""
    page = page_path(results_dir, out, fmt)
    page.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "html":
        page.write_text(render_html(title, blocks), encoding="utf-8")
    else:
        rel = f"{page.stem}_files"
        page.write_text(render_markdown(title, blocks, page.parent / rel, rel), encoding="utf-8")
    return page
