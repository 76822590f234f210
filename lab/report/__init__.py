"""The balance report a designer reads: ``build_report(results_dir, fmt="html"|"md", out=None)``.

Owns the report: the order of its sections (``build``), the tables it reads (``context``), the
"At a glance" answers (``glance``), the detail sections (``sections``, ``cards``), its figures
(``figures``) and its HTML/Markdown rendering (``document``). It only reads records, through
``lab.stats``: no simulation and no statistic of its own.
"""

from lab.report.build import build_report
from lab.report.page import FORMATS

__all__ = ["FORMATS", "build_report"]
