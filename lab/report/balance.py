"""The report's "Balance proposals" section: the result of ``lab balance`` when the results
folder holds one (``balance/balance.json``).

Owns only the translation of ``lab.design.balance.section`` — the proposals ranked on the
selection deals, each with its before/after army table per tier on the fresh deals and its
[[patch]] TOML — into the report's blocks. The figures are read from the search's result file;
nothing here computes a statistic.
"""

from __future__ import annotations

from pathlib import Path

from lab.report.document import Code, Heading, Para, Table


def find(results_dir) -> dict | None:
    """The balance result of a results folder, or None when it holds none."""
    from lab.design.balance import RESULT, read_result
    from lab.errors import LabError

    folder = Path(results_dir)
    if not any(p.is_file() for p in (folder / "balance" / RESULT, folder / RESULT)):
        return None
    try:
        return read_result(folder)
    except LabError as e:  # an unreadable or outdated result: said in the section
        return {"unreadable": str(e)}


def balance_section(result: dict) -> list:
    from lab.design.balance import section

    blocks: list = [Heading("Balance proposals"),
                    Para("From `lab balance`: card edits searched on screening deals, the best "
                         "chosen on selection deals at every tier and measured on fresh deals "
                         "that chose nothing; only the fresh figures are shown. Paste a "
                         "proposal's [[patch]] table into the config and `lab run` it to see it "
                         "in this report (docs/balancing.md).")]
    if "unreadable" in result:
        return blocks + [Para(result["unreadable"])]
    for kind, *rest in section(result):
        if kind == "para":
            blocks.append(Para(rest[0]))
        elif kind == "title":
            blocks.append(Heading(rest[0], 3))
        elif kind == "table":
            columns, rows, caption = rest
            blocks.append(Table(columns, rows, caption))
        elif kind == "code":
            blocks.append(Code(rest[0], "toml"))
    return blocks
