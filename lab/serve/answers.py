"""The results browser: what the results folder holds and what each experiment answered.

Owns the listing of the experiments under the results folder (one per folder with a
``manifest.json``: its game, status, games written, and whether it holds a report, a ``lab
value`` table or a ``lab balance`` result) and, for one of them, the pieces the page shows —
each taken from the layer the commands use: the summary ``lab run`` prints
(``summary_tables``), the report ``lab report`` writes (``build_report``), ``lab value``'s tables
and ``lab balance``'s proposals with their ``[[patch]]`` TOML, and a side by side of two variants
(paired on the same deals, ``lab.stats.compare_variants``) or of two results folders (not
paired: labelled so). It computes no statistic of its own.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import SimpleNamespace

from lab.errors import LabError
from lab.serve.paths import NOT_RESULTS
from lab.serve.tables import Cell, PageTable, from_rich, from_rows

_report_locks: dict[Path, threading.Lock] = {}
_locks_lock = threading.Lock()


def _manifest(folder: Path) -> dict | None:
    try:
        return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def experiments(results: Path) -> list[dict]:
    """Every results folder directly under ``results`` (with a manifest), newest first."""
    from lab.games import of_config
    from lab.serve.jobs import folder_progress

    out = []
    if not results.is_dir():
        return out
    for d in sorted(results.iterdir()):
        if not d.is_dir() or d.name in NOT_RESULTS or d.name.startswith("."):
            continue
        man = _manifest(d)
        if man is None:
            continue
        got = folder_progress(d) or (0, man.get("games") or 0)
        cfg = man.get("config") or {}
        try:
            game = of_config(cfg)
            kind = {
                "game": game.name,
                "display": game.display,
                "compares_armies": game.COMPARES_ARMIES,
            }
        except LabError:  # a game this lab does not host: listed, compared with nothing
            kind = {
                "game": str(cfg.get("game")),
                "display": str(cfg.get("game")),
                "compares_armies": False,
            }
        sessions = man.get("sessions") or []
        out.append(
            {
                "name": d.name,
                **kind,
                "status": man.get("status", "?"),
                "done": got[0],
                "total": got[1],
                "variants": len(cfg.get("variants") or []),
                "started": (sessions[-1].get("started", "") if sessions else ""),
                "games_per_s": (man.get("throughput") or {}).get("games_per_s"),
                "report": (d / "report.html").is_file(),
                "value": value_folder(d) is not None,
                "balance": (d / "balance" / "balance.json").is_file(),
                "mtime": (d / "manifest.json").stat().st_mtime,
            }
        )
    out.sort(key=lambda e: e["mtime"], reverse=True)
    return out


def value_folder(folder: Path) -> Path | None:
    for f in (folder / "value", folder):
        if (f / "value.parquet").is_file():
            return f
    return None


def detail(folder: Path) -> dict:
    """One experiment: its manifest facts and the summary ``lab run`` prints."""
    from lab.games import of_results

    man = _manifest(folder)
    if man is None:
        raise LabError(f"{folder.name} holds no manifest.json; it is not a results folder")
    cfg = man.get("config") or {}
    game = of_results(folder)
    names = SimpleNamespace(
        armies=[SimpleNamespace(key=a["key"], name=a["name"]) for a in cfg.get("armies") or []]
    )
    try:
        tables = [from_rich(t) for t in game.summary_tables(folder, names)]
    except (LabError, OSError, ValueError) as e:
        tables = [from_rows("summary", ["problem"], [[str(e)]])]
    sessions = man.get("sessions") or []
    return {
        "name": folder.name,
        "game": game.name,
        "display": game.display,
        "status": man.get("status"),
        "games": man.get("games"),
        "variants": [v.get("id") for v in cfg.get("variants") or []],
        "tiers": [t.get("label") for t in cfg.get("tiers") or []],
        "armies": [a.get("name") for a in cfg.get("armies") or []],
        "seed": cfg.get("seed"),
        "source": cfg.get("source"),
        "sessions": sessions,
        "throughput": man.get("throughput"),
        "summary": tables,
        "report": (folder / "report.html").is_file(),
        "report_stale": _stale(folder),
        "edits_cards": game.EDITS_CARDS,
        "value": value_folder(folder) is not None,
        "balance": (folder / "balance" / "balance.json").is_file(),
    }


def _stale(folder: Path) -> bool:
    page = folder / "report.html"
    if not page.is_file():
        return False
    newest = max(
        (
            p.stat().st_mtime
            for p in [
                folder / "manifest.json",
                folder / "value" / "value.parquet",
                folder / "balance" / "balance.json",
            ]
            if p.is_file()
        ),
        default=0,
    )
    return page.stat().st_mtime < newest


def build_report(folder: Path) -> Path:
    """``lab report FOLDER``: the same checks and the same page (report.html in the folder)."""
    from lab.games import of_results
    from lab.records import check_readable

    with _locks_lock:
        lock = _report_locks.setdefault(folder, threading.Lock())
    with lock:
        check_readable(folder)
        return of_results(folder).build_report(folder, fmt="html")


def value_tables(folder: Path) -> list[PageTable]:
    """``lab value``'s tables of the folder (one per variant × tier)."""
    from lab.design import value
    from lab.stats import read_value

    table = read_value(folder)
    if table is None:
        return []
    tables = [from_rich(t) for t in value.tables(table)]
    prec = value.precision(table)
    if tables:
        tables[-1].caption += (
            f" — 95% half-width: at most {prec['max_half_width']:.2f} points "
            f"(median {prec['median_half_width']:.2f}) over {prec['rows']} "
            "rows"
        )
    return tables


def balance_blocks(folder: Path) -> list[dict] | None:
    """``lab balance``'s result as the page shows it: paragraphs, titles, before/after tables
    and the ``[[patch]]`` TOML of each proposal (``lab.report.balance.section``)."""
    from lab.report import balance

    path = folder / "balance"
    if not (path / "balance.json").is_file():
        return None
    result = balance.read_result(path)
    out = []
    for block in balance.section(result):
        kind = block[0]
        if kind == "table":
            out.append({"kind": "table", "table": from_rows("", block[1], block[2], block[3])})
        else:
            out.append({"kind": kind, "text": block[1]})
    return out


# ------------------------------------------------------------------------------ side by side


def variants_of(folder: Path) -> list[str]:
    from lab.games import get

    man = _manifest(folder) or {}
    cfg = man.get("config") or {}
    return get(cfg.get("game")).variant_ids(cfg)


def compare(a: Path, va: str, b: Path, vb: str) -> dict:
    """Per army and bot tier: the win rate of variant ``va`` in folder ``a`` beside that of
    ``vb`` in ``b`` (95% intervals clustered by deal), and — in one folder — the paired change
    on the same deals; across two folders the change is not paired and is not computed."""
    from lab import stats
    from lab.games import of_results
    from lab.report.document import pct, points

    for folder in (a, b):
        if _manifest(folder) is None:
            raise LabError(f"{folder.name} holds no manifest.json; it is not a results folder")
        game = of_results(folder)
        if not game.COMPARES_ARMIES:
            raise LabError(
                f"{folder.name} holds {game.display} records; the side by side "
                "compares armies — open its report instead"
            )
    rec_a = stats.load(a)
    rec_b = rec_a if b == a else stats.load(b)
    for rec, folder, v in ((rec_a, a, va), (rec_b, b, vb)):
        if v not in set(rec.variants()):
            raise LabError(
                f"variant \"{v}\" is not in {folder.name}; its variants: "
                f"{', '.join(rec.variants())}"
            )
    ta, tb = stats.army_table(rec_a), stats.army_table(rec_b)
    ta, tb = ta[ta["variant"] == va], tb[tb["variant"] == vb]
    names = {**rec_b.army_names(), **rec_a.army_names()}
    paired = None
    if a == b:
        paired = stats.compare_variants(rec_a, va, vb)
        paired = paired[paired["kind"] == "army"]
    tables = []
    tiers = list(dict.fromkeys(list(ta["tier"]) + list(tb["tier"])))
    for tier in tiers:
        ra = {r["army"]: r for r in ta[ta["tier"] == tier].to_dict("records")}
        rb = {r["army"]: r for r in tb[tb["tier"] == tier].to_dict("records")}
        rows = []
        for army in dict.fromkeys(list(ra) + list(rb)):
            cells = [Cell(f"{names.get(army, army)} ({army})")]
            for r in (ra.get(army), rb.get(army)):
                if r is None:
                    cells.append(Cell("—", dim=True))
                else:
                    cells.append(
                        Cell(
                            f"{pct(r['win_rate'])} [{pct(r['win_rate_lo'])}, "
                            f"{pct(r['win_rate_hi'])}] n={int(r['win_rate_n']):,}",
                            dim=bool(r.get("thin")),
                        )
                    )
            if paired is not None:
                p = paired[(paired["tier"] == tier) & (paired["army"] == army)]
                if len(p):
                    x = p.iloc[0]
                    cells.append(
                        Cell(
                            f"{points(x['change'])} [{points(x['change_lo'])}, "
                            f"{points(x['change_hi'])}] pairs={int(x['pairs']):,}",
                            strong=bool(x["moved"]),
                            dim=bool(x["thin"]),
                        )
                    )
                else:
                    cells.append(Cell("—", dim=True))
            rows.append(cells)
        cols = ["army", f"{a.name}: {va}", f"{b.name}: {vb}"]
        if paired is not None:
            cols.append("paired change (points)")
        caption = (
            "win rate in decisive games (as the report's armies table), 95% interval clustered by deal; "
            + (
                "change: on the same deals (causal), bold where it moved (BH q < 0.05)"
                if paired is not None
                else "two results folders: different runs, so the columns are side by side "
                "only — no paired change (observational)"
            )
        )
        tables.append(from_rows(f"armies — bots {tier}", cols, rows, caption))
    return {"tables": tables, "paired": paired is not None}


__all__ = [
    "balance_blocks",
    "build_report",
    "compare",
    "detail",
    "experiments",
    "value_folder",
    "value_tables",
    "variants_of",
]
