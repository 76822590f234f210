"""The balance report a designer reads: ``build_report(results_dir, fmt="html"|"md", out=None)``.

Owns the report's sections (``build``), its figures (``figures``) and its HTML/Markdown rendering
(``document``). It only reads records, through ``lab.stats``: no simulation and no statistic of
its own.
"""

from lab.report.build import FORMATS, build_report

__all__ = ["FORMATS", "build_report"]
