"""The result of ``lab balance`` as people read it: the report's "Balance proposals" section
(when the results folder holds ``balance/balance.json``), the terminal's tables after a search
and the web app's blocks.

Owns the text of the result — a headline, the search line, per proposal ranked on the selection
deals its before/after army table per tier on the fresh deals and its [[patch]] TOML — as plain
blocks (``section``), rich tables (``tables``) or the report's blocks (``balance_section``).
The figures are read from the result file (``lab.records.balance``); nothing here computes a
statistic or imports the search.
"""

from __future__ import annotations

from pathlib import Path

from lab.errors import LabError
from lab.fmt import pct
from lab.fmt import points as pts
from lab.records.balance import RESULT, read_result
from lab.report.document import Code, Heading, Para, Table


def find(results_dir) -> dict | None:
    """The balance result of a results folder, or None when it holds none."""

    folder = Path(results_dir)
    if not any(p.is_file() for p in (folder / "balance" / RESULT, folder / RESULT)):
        return None
    try:
        return read_result(folder)
    except LabError as e:  # an unreadable or outdated result: said in the section
        return {"unreadable": str(e)}


def balance_section(result: dict) -> list:
    blocks: list = [
        Heading("Balance proposals"),
        Para(
            "From `lab balance`: card edits searched on screening deals, the best "
            "chosen on selection deals at every tier (then polished: an edit or two "
            "more, fewer or other, on polishing deals) and measured on fresh deals "
            "that chose nothing; only the fresh figures are shown. Paste a "
            "proposal's [[patch]] table into the config and `lab run` it to see it "
            "in this report (docs/balancing.md)."
        ),
    ]
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


# -------------------------------------------------------------------- the result as text


def headline(result: dict) -> str:
    """One paragraph: what was searched and what came out."""
    tgt = f"{100 * result['target']:.0f}% ± {100 * result['band']:.0f}"
    tiers = result["tiers"]
    head = (
        f"{result['name']} ({result['variant']}; screened at {tiers[0]}"
        + (f", judged at {', '.join(tiers)}" if len(tiers) > 1 else "")
        + f"): target {tgt} points at every tier, at most {result['max_edits']} edits."
    )
    for label, b in result["before"].items():
        worst = max(b["armies"], key=lambda r: abs(r["rate"] - result["target"]))
        head += (
            f" As written at {label}: worst army {worst['name']} at {pct(worst['rate'])}, "
            f"spread {100 * b['spread']:.1f} points."
        )
    props = result["proposals"]
    meet = [p for p in props if p["meets_target"]]
    where = "on fresh deals at every tier" if len(tiers) > 1 else "on fresh deals"
    if meet:
        p = meet[0]
        head += (
            f" Proposal #{p['rank']}: {p['n_edits']} edit(s), every army within the band "
            f"{where} (worst {100 * p['worst']:.1f} points from the target, spread "
            f"{100 * p['spread']:.1f})."
        )
    elif props:
        p = props[0]
        head += (
            f" No proposal brings every army into the band {where}; the best "
            f"(#{p['rank']}): {p['n_edits']} edit(s), worst {100 * p['worst']:.1f} points "
            f"from the target, spread {100 * p['spread']:.1f}."
        )
    else:
        head += " No proposal was selected within the budget."
    return head


def search_line(result: dict) -> str:
    se = result["search"]
    stop = {"budget": "the budget was spent", "converged": "nothing was left to try"}.get(
        se["stop"], se["stop"] or "interrupted"
    )
    games = "; ".join(
        f"{label}: {g['screen']:,} screening, {g['selection']:,} selection, "
        + (f"{g['polishing']:,} polishing, " if g.get("polishing") else "")
        + f"{g['fresh']:,} fresh"
        for label, g in se["games"].items()
    )
    searched = se.get("searched_minutes")
    split = (
        f" ({searched:.1f} searching, the rest measuring the proposals)"
        if searched is not None
        else ""
    )
    line = (
        f"search: {se['rounds']} rounds in {se['minutes']:.1f} min{split}, "
        f"{se['candidates']:,} edit sets screened ({se['dropped']:,} dropped by racing, "
        f"{se['selected']} selected), {se['edits_tried']} single edits from "
        f"{se['edits_from']}{_centring_note(se)}; games — {games}; stopped because {stop}"
    )
    cal = se.get("calibration")
    if cal and cal.get("measured") is not None:
        big = sorted(cal["armies"], key=lambda a: -abs(a["offset"]))[:3]
        line += (
            f"; the polishing judged {cal['tier']} too, as {cal['of']} plus its offset measured "
            f"on {_calibrated_on(cal)} ({cal['games']:,} games; "
            + ", ".join(f"{a['name']} {100 * a['offset']:+.1f}" for a in big)
            + " points)"
        )
    budget = se.get("budget_minutes")
    if budget is not None and se["minutes"] > budget + 1:
        line += (
            f". It ran {se['minutes'] - budget:.0f} min past its {budget:g}-minute budget: at "
            "this machine's pace the strong tiers' final measurements do not fit beside the "
            "search's own share of it — give a larger --budget-minutes, or fewer "
            "--strong-games"
        )
    return line


ARMY_COLUMNS = ["army", "before", "after", "change (points)", "games"]
CAPTION = (
    "fresh deals — never used to screen or to choose the proposals; win rate (draw ½) "
    "before and after the edits with 95% intervals clustered by deal; change paired on "
    "the same games"
)


def _span(lo, hi, fmt) -> str:
    return f"[{fmt(lo)}, {fmt(hi)}]"


def army_rows(t: dict) -> list[list[str]]:
    """The before/after table of a proposal at one tier (text cells: value and 95% interval)."""
    num = lambda x: pct(x).removesuffix("%")  # noqa: E731
    return [
        [
            r["name"],
            f"{pct(r['before'])} {_span(r['before_lo'], r['before_hi'], num)}",
            f"{pct(r['after'])} {_span(r['after_lo'], r['after_hi'], num)}",
            f"{pts(r['change'])} {_span(r['change_lo'], r['change_hi'], pts)}",
            f"{r['games']:,}",
        ]
        for r in t["armies"]
    ]


def title(p: dict, result: dict) -> str:
    verdict = (
        "every army within the band at every tier"
        if p["meets_target"]
        else f"worst army {100 * p['worst']:.1f} points from the target"
    )
    deals = p.get("chosen_on", "selection")
    sel = "; ".join(
        (
            f"{label} worst {100 * o['worst']:.1f}"
            + (f" ({100 * o['judged_worst']:.1f} as judged)" if "judged_worst" in o else "")
            + f", spread {100 * o['spread']:.1f}"
        )
        if "worst" in o
        # the calibration tier: estimated from a strong tier's games, never played there
        else f"{label} worst {100 * o['judged_worst']:.1f} as judged"
        for label, o in (p.get(deals) or {}).items()
        if o
    )
    return (
        f"#{p['rank']}: {p['n_edits']} edit(s), {verdict}; spread "
        f"{100 * p['spread']:.1f} points (fresh deals; chosen on the {deals} deals: "
        f"{sel})"
    )


def tier_title(label: str, t: dict, result: dict) -> str:
    verdict = (
        "every army within the band"
        if t["meets_target"]
        else (f"worst army {100 * t['worst']:.1f} points from the target")
    )
    return (
        f"at {label}: {verdict}; spread {100 * t['spread']:.1f}; every 95% interval within "
        f"{100 * t['worst_interval']:.1f} points of {100 * result['target']:.0f}% "
        f"({t['games']['per_army_min']:,} fresh games per army)"
    )


def gap_line(p: dict, result: dict) -> str | None:
    """Where the tiers disagree about the proposal's armies, and how close to the target that
    lets an army come at both tiers (None with one tier, or a result written before)."""
    gaps = p.get("tier_gaps")
    if not gaps:
        return None
    first = next(iter(p["tiers"]))
    parts, widest, floor = [], None, 0.0
    for label, g in gaps.items():
        apart = sorted(
            (r for r in g["armies"] if r["gap_lo"] > 0 or r["gap_hi"] < 0),
            key=lambda r: -abs(r["gap"]),
        )
        said = ", ".join(
            f"{r['name']} {pts(r['gap'])} {_span(r['gap_lo'], r['gap_hi'], pts)}" for r in apart
        )
        parts.append(f"{first} − {label}: " + (said + " points" if said else "none beyond chance"))
        if widest is None or g["floor"] > floor:
            floor = g["floor"]
            widest = max(g["armies"], key=lambda r: abs(r["gap"]))
    return (
        "where the tiers disagree (on the same fresh games): "
        + "; ".join(parts)
        + ". An edit that moves an army alike at both tiers brings it no closer to "
        f"{100 * result['target']:.0f}% than half such a gap at both: about "
        f"±{100 * floor:.1f} points for {widest['name']} with these edits." + _opened(widest)
    )


def _opened(r: dict) -> str:
    """What the edits did to the widest gap, when they widened it beyond chance (a result
    written before says nothing)."""
    if "opened" not in r or abs(r["gap"]) <= abs(r["gap_before"]):
        return ""
    if r["opened_lo"] <= 0 <= r["opened_hi"]:
        return ""
    return (
        f" These edits opened it: {r['name']}'s gap was {pts(r['gap_before'])} as written and "
        f"moved {pts(r['opened'])} {_span(r['opened_lo'], r['opened_hi'], pts)} points with "
        "them; edits both tiers feel alike would leave it narrower."
    )


def tables(result: dict, top: int = 5):
    """Rich renderables: per proposal its title, a before/after table per tier, its TOML."""
    from rich.table import Table
    from rich.text import Text

    out = []
    for p in result["proposals"][:top]:
        out.append(Text(title(p, result), style="bold"))
        for label, t in p["tiers"].items():
            tab = Table(
                title=tier_title(label, t, result),
                title_justify="left",
                caption=CAPTION,
                caption_justify="left",
            )
            for i, col in enumerate(ARMY_COLUMNS):
                tab.add_column(col, justify="left" if i == 0 else "right", no_wrap=True)
            for row in army_rows(t):
                tab.add_row(*row)
            out.append(tab)
        gap = gap_line(p, result)
        if gap:
            out.append(Text(gap))
        out.append(Text(p["toml"]))
    return out


def section(result: dict, top: int = 5) -> list[tuple]:
    """The report's "Balance proposals" section as plain blocks — ("para", text), ("title",
    text), ("table", columns, rows, caption), ("code", text) — which the report renders."""
    blocks: list[tuple] = [("para", headline(result)), ("para", search_line(result))]
    for p in result["proposals"][:top]:
        blocks.append(("title", title(p, result)))
        for label, t in p["tiers"].items():
            blocks.append(("para", tier_title(label, t, result)))
            blocks.append(("table", ARMY_COLUMNS, army_rows(t), CAPTION))
        gap = gap_line(p, result)
        if gap:
            blocks.append(("para", gap))
        blocks.append(("code", p["toml"]))
    return blocks


def _calibrated_on(cal: dict) -> str:
    """Which polished sets a calibration offset was measured on, in words."""
    sets = cal.get("sets", 1)
    if sets <= 1:
        return "the best selected set"
    return f"the best selected set and {sets - 1} polished neighbour{'s' if sets > 2 else ''}"


def _centring_note(se: dict) -> str:
    """How many deck-list edits polishing could centre the armies with, and how often it did."""
    n = se.get("centring_edits") or 0
    if not n:
        return ""
    rounds = sum(1 for h in se.get("history", ()) if h.get("centred"))
    return f" (and {n} deck-list edits to centre the armies with: {rounds} centring rounds)"
