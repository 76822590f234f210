"""The balance report: read a results folder, compute the ``lab.stats`` tables, write a page.

Owns: ``build_report(results_dir, fmt="html"|"md", out=None)`` — the order of the sections a
designer reads: "At a glance" first (``glance``: armies out of band, the cards that cause it, what
each variant moved, dead abilities, first-player advantage — per variant and tier), then the run,
variants, variant changes on paired deals, armies, tier stability (two tiers or more), card value
from ``lab value`` (when the folder holds ``value.parquet`` or ``value/value.parquet``), the
balance proposals of ``lab balance`` (when it holds ``balance/balance.json``), the observational
card metrics with the opening-hand effect (labelled: not a cause) and dead abilities
(``sections``, ``cards``)
— rendered as one self-contained HTML file or a Markdown twin with PNG figures beside it
(``document``, written by ``page``). Reports only read records (through ``lab.stats``); nothing here simulates or
computes a statistic of its own.
"""

from __future__ import annotations

from pathlib import Path

from lab import stats
from lab.report import balance, cards, glance, sections
from lab.report.context import Context
from lab.report.page import check_format, write_page


def build_report(
    results_dir,
    fmt: str = "html",
    out=None,
    *,
    base: str | None = None,
    min_games: int = stats.MIN_GAMES,
    tier_order=None,
) -> Path:
    """Write the balance report for a results folder; returns the path of the page written.

    ``out``: a file path, or a folder (the page is ``report.html``/``report.md`` in it); by
    default the results folder. Markdown figures go to ``<page stem>_files/`` beside the page.
    ``base``: the variant the others are compared with (default: second_edition when the run
    has it, else the run's first unpatched variant). ``tier_order``: the tiers from weakest to
    strongest (default: ranked from the bots' results, ``stats.tier_order``). Intervals are
    95% and flags use a 5% false-discovery rate (``stats.ALPHA``), as the page says.
    """
    check_format(fmt)
    rec = stats.load(results_dir)
    ctx = Context(
        rec,
        rec.variants(),
        stats.reference_variant(rec, base),
        stats.tier_order(rec, tier_order),
        min_games,
        stats.ALPHA,
        stats.read_value(results_dir),
        rec.army_names(),
    )

    blocks = glance.at_a_glance(ctx)
    blocks += sections.run_summary(ctx)
    blocks += sections.variants(ctx)
    if len(ctx.variants) > 1:
        blocks += sections.changes(ctx)
    blocks += sections.armies(ctx)
    if len(ctx.tiers) > 1:
        blocks += sections.tier_stability(ctx)
    if ctx.value is not None:
        blocks += cards.value_section(ctx)
    proposals = balance.find(results_dir)
    if proposals is not None:
        blocks += balance.balance_section(proposals)
    blocks += cards.observational(ctx)  # the opening-hand effect closes it: not a cause
    blocks += cards.abilities(ctx)

    title = f"大天下 balance report — {Path(results_dir).resolve().name}"
    return write_page(results_dir, out, fmt, title, blocks)
