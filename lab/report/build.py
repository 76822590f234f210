"""The balance report: read a results folder, compute the ``lab.stats`` tables, write a page.

Owns: ``build_report(results_dir, fmt="html"|"md", out=None)`` — the sections a designer reads
(run summary; variants with first-player advantage, end reasons and game length; variant changes
on paired deals with the ranked "what moved" table; armies with the matchup heatmap and
Bradley–Terry ratings; the skill split when the run has two or more tiers; cards with the IWD
forest plot and Benjamini–Hochberg flags; dead and rare abilities), rendered as one
self-contained HTML file or a Markdown twin with PNG figures beside it. Every number shows its
95% interval and sample size; thin cells are greyed. Reports only read records (through
``lab.stats``); nothing here simulates or computes a statistic of its own.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from lab import stats
from lab.errors import LabError
from lab.report import figures as F
from lab.stats.armies import army_order
from lab.report.document import (Cell, Details, Figure, Heading, Para, Table, num, pct, points,
                                 render_html, render_markdown)

FORMATS = ("html", "md")
TOP_MOVED = 15
DEFAULT_BASE = "second_edition"  # the current rulebook: the reference when the run has it


def _ordered(df: pd.DataFrame, variants: list[str], *cols: str) -> pd.DataFrame:
    """Rows in the run's variant order, then the canonical army order, then ``cols``."""
    armies = {a: i for i, a in enumerate(army_order(df["army"]))} if "army" in df else {}
    key = {"variant": lambda s: s.map({v: i for i, v in enumerate(variants)}),
           "army": lambda s: s.map(armies)}
    by = [c for c in ("variant", "army") if c in df.columns] + list(cols)
    return df.sort_values(by, key=lambda s: key[s.name](s) if s.name in key else s,
                          kind="stable")


def _fig(name: str, fig, caption: str) -> Figure:
    return Figure(name, F.png(fig), caption)


def _army(key: str, names: dict) -> str:
    return f"{names[key]} ({key})" if key in names and names[key] != key else key


# ------------------------------------------------------------------------------------ sections

def _summary(rec, variants, tiers, names, min_games) -> list:
    g = rec.games
    armies = sorted(set(g["army_a"]) | set(g["army_b"]))
    man = rec.manifest
    facts = [f"Results: {rec.path}", f"{len(g):,} games",
             f"variants: {', '.join(variants)}",
             f"armies: {', '.join(_army(a, names) for a in army_order(armies))}",
             f"tiers: {', '.join(tiers)}"]
    config = man.get("config") if isinstance(man.get("config"), dict) else {}
    if config.get("name"):
        facts.append(f"config: {config['name']} ({config.get('source', '')}, seed "
                     f"{config.get('seed', '?')})")
    git = man.get("git") if isinstance(man.get("git"), dict) else {}
    if git.get("commit"):
        facts.append(f"commit {str(git['commit'])[:10]}" + (" (dirty)" if git.get("dirty") else ""))
    if man.get("status") and man["status"] != "complete":
        facts.append(f"run status: {man['status']}")
    blocks = [Heading("Run"), Para(" · ".join(facts))]
    if rec.error_games or rec.skipped_chunks:
        blocks.append(Para(f"Left out: {rec.error_games:,} game(s) that hit an engine limit "
                           f"(error), {rec.skipped_chunks} incomplete chunk(s)."))
    return blocks + [
            Para(f"How to read: each value is followed by its 95% interval and the number of games "
                 f"it counts (n). Cells counting fewer than {min_games} games are greyed (in "
                 "Markdown: italic with †). Bold marks a card or change flagged by "
                 "Benjamini–Hochberg at a 5% false-discovery rate. Win rates count decisive "
                 "games; a draw scores ½ in paired changes. Definitions: docs/stats.md.")]


def _variants(rec, variants, min_games) -> list:
    vt = _ordered(stats.variant_table(rec), variants)
    reasons = [c[4:] for c in vt.columns if c.startswith("end_") and c.count("_") >= 1
               and not c.endswith(("_lo", "_hi", "_n"))]
    cols = ["variant", "games", "first player wins", "draws", "comebacks", "leader turns",
            "battles", "wall margin"]
    rows = [[r["variant"], num(r["games"], 0),
             Cell.rate(r, "first_win", min_games), Cell.rate(r, "draw", min_games),
             Cell.rate(r, "comeback", min_games), Cell.mean(r, "leader_turns"),
             Cell.mean(r, "battles"), Cell.mean(r, "wall_margin")] for _, r in vt.iterrows()]
    end_rows = [[r["variant"], num(r["games"], 0)]
                + [Cell.rate(r, f"end_{x}", min_games) for x in reasons] for _, r in vt.iterrows()]
    lengths = {c: stats.length_values(rec, column=c) for c in ("leader_turns", "battles")}
    lengths = {c: {v: d[v] for v in variants if v in d} for c, d in lengths.items()}
    return [
        Heading("Variants"),
        Para("Per rule variant: the first player's win rate among decisive games, draws, "
             "comebacks (the winner was behind by ≥ 3 walls at some point), mean game length "
             "(medians in the notebook), the winner's wall margin and how games ended."),
        Table(cols, rows, "mean values with t intervals; rates with Wilson intervals"),
        Table(["variant", "games"] + [f"end: {x}" for x in reasons], end_rows,
              "how games ended (share of all games)"),
        _fig("first-player", F.first_player_figure(vt, min_games),
             "First-player advantage per variant: win rate of the player who moved first, "
             "decisive games, 95% Wilson intervals."),
        _fig("game-length", F.length_figure(lengths),
             "Game length per variant: leader turns and battles (share of games)."),
    ]


def _changes(rec, variants, base, names, min_games) -> list:
    blocks = [Heading("Variant changes"),
              Para(f"Each variant against {base} on paired deals (same army pair, deal, seat "
                   "order and tier, so both played the same deck orders). Change = mean paired "
                   "difference in score (win 1, draw ½, loss 0), in percentage points, with the "
                   "paired t interval.")]
    for other in variants:
        if other == base:
            continue
        try:
            cmp = _ordered(stats.compare_variants(rec, base, other, min_games=min_games),
                           variants)
            moved = stats.what_moved(rec, base, other, min_games=min_games)
        except LabError as e:
            blocks.append(Para(f"{other}: not compared — {e}"))
            continue
        blocks.append(Heading(f"{base} → {other}", 3))
        blocks.append(_fig(f"change-{other}", F.change_figure(cmp, names, f"{base} → {other}"),
                           f"Change in score from {base} to {other}, per army and overall, "
                           "95% paired intervals (grey: the interval includes 0; hatched: "
                           f"fewer than {min_games} pairs)."))
        unp = cmp.attrs.get("unpaired", {})
        if any(unp.values()):
            blocks.append(Para("Unpaired games left out: " + ", ".join(
                f"{k} {v:,}" for k, v in unp.items())))
        blocks.append(Heading(f"What moved ({base} → {other})", 3))
        shown = moved[moved["moved"]]
        shown = pd.concat([shown, moved[~moved["moved"]].head(max(0, TOP_MOVED - len(shown)))])
        blocks.append(_moved_table(shown, names, "ranked: moved (BH q < 0.05) first, then by "
                                   "|change| / SE; shares in percentage points, lengths in "
                                   f"turns or battles; grey: fewer than {min_games} pairs "
                                   "(not tested)"))
        blocks.append(Details(f"all {len(moved)} rows", [_moved_table(moved, names, "")]))
    return blocks


def _moved_table(t: pd.DataFrame, names: dict, caption: str) -> Table:
    rows = []
    for _, r in t.iterrows():
        is_rate = r["kind"] != "length"
        fmt_v = pct if is_rate else (lambda x: num(x, 2))
        thin = bool(r["thin"])
        change = (Cell.diff(r, "change", thin=thin, strong=bool(r["moved"])) if is_rate else
                  Cell(f"{r['change']:+.2f}", f"[{r['change_lo']:+.2f}, {r['change_hi']:+.2f}]",
                       thin=thin, strong=bool(r["moved"])))
        item = (_army(r["army"], names) if r["kind"] == "army" else
                f"{_army(r['army'], names)} vs {_army(r['opponent'], names)}"
                if r["kind"] == "matchup" else r["item"])
        rows.append([int(r["rank"]), r["kind"], item, fmt_v(r["base"]), fmt_v(r["other"]),
                     change, Cell(num(r["pairs"], 0), thin=thin),
                     f"{r['q']:.3g}" if pd.notna(r["q"]) else "—", "yes" if r["moved"] else ""])
    return Table(["rank", "kind", "what", "base", "other", "change", "pairs", "BH q",
                  "moved"], rows, caption)


def _armies(rec, variants, names, min_games) -> list:
    at = _ordered(stats.army_table(rec, min_games=min_games), variants)
    bt = stats.bradley_terry(rec)
    mt = _ordered(stats.matchup_table(rec, min_games=min_games), variants)
    blocks = [Heading("Armies"),
              Para("Win rates leave out mirror games and count decisive games. Bradley–Terry: "
                   "a logistic model of army strength plus a first-player term, rating shown as "
                   "the win probability against the average army.")]
    rows = []
    for _, r in at.iterrows():
        b = bt[(bt["variant"] == r["variant"]) & (bt["army"] == r["army"])]
        bcell = (Cell(pct(b["vs_average"].iloc[0]), f"[{pct(b['vs_average_lo'].iloc[0])}, "
                      f"{pct(b['vs_average_hi'].iloc[0])}] n={int(b['games'].iloc[0]):,}",
                      thin=bool(b["games"].iloc[0] < min_games)) if len(b) else Cell("—"))
        rows.append([r["variant"], _army(r["army"], names), num(r["games"], 0),
                     Cell.rate(r, "win_rate", min_games), Cell.rate(r, "win_rate_first", min_games),
                     Cell.rate(r, "win_rate_second", min_games), bcell])
    blocks.append(Table(["variant", "army", "games", "win rate", "going first", "going second",
                         "BT vs average"], rows))
    fp = _ordered(bt[bt["term"] == "first_player"], variants)
    if len(fp):
        blocks.append(Table(["variant", "first-player edge (log-odds)", "first player's win "
                             "probability, equal armies", "games"],
                            [[r["variant"], Cell(f"{r['rating']:+.3f}", f"[{r['rating_lo']:+.3f}, "
                                                 f"{r['rating_hi']:+.3f}]"),
                              Cell(pct(r["vs_average"]), f"[{pct(r['vs_average_lo'])}, "
                                   f"{pct(r['vs_average_hi'])}]"), num(r["games"], 0)]
                             for _, r in fp.iterrows()], "Bradley–Terry first-player term"))
    blocks.append(_fig("ratings", F.ratings_figure(bt, names, order=variants),
                       "Bradley–Terry ratings per variant (win probability against the average "
                       "army, 95% intervals)."))
    for v in variants:
        part = mt[mt["variant"] == v]
        if part.empty:
            continue
        mat = stats.matchup_matrix(part, "win_rate")
        cnt = stats.matchup_matrix(part, "win_rate_n")
        blocks.append(_fig(f"matchups-{v}", F.matchup_heatmap(mat, cnt, min_games, names,
                                                              f"相性表 — matchups ({v})"),
                           f"Matchups under {v}: the row army's win rate against the column "
                           f"army (decisive games; hatched grey: fewer than {min_games})."))
    mrows = [[r["variant"], _army(r["army"], names), _army(r["opponent"], names),
              Cell.rate(r, "win_rate", min_games)] for _, r in mt.iterrows()]
    blocks.append(Details("matchup table with intervals",
                          [Table(["variant", "army", "opponent", "win rate"], mrows)]))
    return blocks


def _skill(rec, variants, order, names, min_games, ct_tier) -> list:
    try:
        order = stats.tier_order(rec, order)
    except LabError as e:
        return [Heading("Skill split"), Para(f"not shown — {e}")]
    at = stats.army_table(rec, by=("variant", "tier"))
    sp = _ordered(stats.skill_split(at, "win_rate", order=order, min_games=min_games), variants)
    weak, strong = order[0], order[-1]
    blocks = [Heading("Skill split"),
              Para(f"Tiers from weaker to stronger: {' < '.join(order)}. Skill sensitivity = "
                   f"value at {strong} − value at {weak} (Newcombe interval for win rates, "
                   "normal approximation for IWD).")]
    rows = []
    for _, r in sp.iterrows():
        rows.append([r["variant"], _army(r["army"], names)]
                    + [Cell(pct(r[f"win_rate@{t}"]), f"n={int(r[f'win_rate_n@{t}']):,}"
                            if pd.notna(r[f"win_rate_n@{t}"]) else "",
                            thin=not (r[f"win_rate_n@{t}"] >= min_games)) for t in order]
                    + [Cell.diff(r, "skill_sensitivity", thin=bool(r["thin"]),
                                 strong=bool(r["skill_flag"]))])
    blocks.append(Table(["variant", "army"] + [f"win rate @ {t}" for t in order]
                        + ["skill sensitivity (pts)"], rows))
    cs = stats.skill_split(ct_tier, "iwd", order=order, min_games=min_games)
    cs = cs[~cs["thin"]].assign(_a=lambda d: -d["skill_sensitivity"].abs()).sort_values("_a")
    crow = [[r["variant"], _army(r["army"], names), r["card"]]
            + [Cell(points(r[f"iwd@{t}"])) for t in order]
            + [Cell.diff(r, "skill_sensitivity", strong=bool(r["skill_flag"]))]
            for _, r in cs.head(TOP_MOVED).iterrows()]
    blocks.append(Heading("Cards most sensitive to skill (IWD)", 3))
    blocks.append(Table(["variant", "army", "card"] + [f"IWD @ {t} (pts)" for t in order]
                        + ["skill sensitivity (pts)"], crow,
                        f"top {TOP_MOVED} non-thin cards by |change|; bold: flagged by "
                        "Benjamini–Hochberg"))
    return blocks


def _card_rows(t: pd.DataFrame, names: dict, min_games: int) -> list:
    rows = []
    for _, r in t.iterrows():
        rows.append([_army(r["army"], names), r["card"], num(r["copies"], 0),
                     Cell.rate(r, "gih", min_games, strong=bool(r["gih_flag"])),
                     Cell.rate(r, "gns", min_games),
                     Cell.diff(r, "iwd", n=r["iwd_n"], thin=bool(r["thin"]),
                               strong=bool(r["iwd_flag"])),
                     points(r["iwd_base"]),
                     f"{r['iwd_q']:.3g}" if pd.notna(r["iwd_q"]) else "—",
                     Cell.rate(r, "oh", min_games), Cell.rate(r, "gd", min_games),
                     Cell.rate(r, "gained", min_games), Cell.rate(r, "played", min_games),
                     Cell.rate(r, "won_set", min_games), Cell.rate(r, "trigger", min_games)])
    return rows


CARD_COLUMNS = ["army", "card", "copies", "GIH WR", "GNS WR", "IWD (pts)", "army IWD (pts)",
                "IWD BH q", "OH WR", "GD WR", "gained-from-walls WR", "played WR",
                "in a winning set", "ability acted"]


def _cards(ct, variants, names, min_games) -> list:
    blocks = [Heading("Cards"),
              Para("17lands-style, counted in games (a seat's game with the card in its deck): "
                   "GIH = in the opening hand (OH) or drawn from the deck later (GD); cards that "
                   "came from the walls are their own column; GNS = not seen; IWD = GIH − GNS win "
                   "rate. A card is flagged (bold) when its GIH win rate or IWD differs from its "
                   "army's baseline after Benjamini–Hochberg (5% FDR over the table).")]
    for v in variants:
        part = ct[ct["variant"] == v]
        if part.empty:
            continue
        blocks.append(Heading(f"Cards under {v}", 3))
        blocks.append(_fig(f"cards-{v}", F.forest_figure(part, names, f"IWD per card ({v}); "
                                                          "dashed: army baseline"),
                           f"Improvement when drawn per card under {v} with 95% Newcombe "
                           "intervals; coloured: flagged; grey: thin."))
        flagged = part[part["gih_flag"] | part["iwd_flag"]].sort_values("iwd", ascending=False)
        if len(flagged):
            blocks.append(Table(CARD_COLUMNS, _card_rows(flagged, names, min_games),
                                f"{len(flagged)} flagged card(s) under {v}"))
        else:
            blocks.append(Para(f"No card under {v} differs from its army's baseline after "
                               "Benjamini–Hochberg."))
        full = part.sort_values(["army", "iwd"], ascending=[True, False])
        blocks.append(Details(f"all {len(full)} cards under {v}",
                              [Table(CARD_COLUMNS, _card_rows(full, names, min_games))]))
    return blocks


def _abilities(rec, variants, min_games) -> list:
    by = ("variant",) if len(variants) > 1 else None
    ab = stats.ability_table(rec, by=by, min_games=min_games)
    keys = ["variant"] if by else []

    def rows(t):
        return [[*(r[k] for k in keys), r["card"], r["ability"], r["ability_id"], r["armies"],
                 num(r["decks"], 0), num(r["held"], 0), num(r["fired"], 0),
                 Cell(pct(r["fired_rate"], 2),
                      f"[{pct(r['fired_rate_lo'], 2)}, {pct(r['fired_rate_hi'], 2)}]"
                      if pd.notna(r["fired_rate_lo"]) else "", thin=bool(r["thin"])),
                 Cell(r["status"], strong=bool(r["flag"]))] for _, r in t.iterrows()]

    cols = [*keys, "card", "ability", "id", "armies", "games in deck", "games held",
            "games it acted", "acted / held", "status"]
    flagged = ab[ab["flag"]]
    blocks = [Heading("Dead and rare abilities"),
              Para("Every ability of the pool: games whose deck held the card, games where it "
                   "reached the hand, and games where the ability changed the state. 'never' and "
                   "'rare' (< 1% of the games that held the card) are flagged for the designers; "
                   "abilities with no effect rows are listed as 'no effect', not flagged.")]
    blocks.append(Table(cols, rows(flagged), f"{len(flagged)} flagged") if len(flagged)
                  else Para("No ability is dead or rare in this run."))
    blocks.append(Details(f"all {len(ab)} abilities", [Table(cols, rows(ab))]))
    return blocks


# ---------------------------------------------------------------------------------------- build

def build_report(results_dir, fmt: str = "html", out=None, *, base: str | None = None,
                 min_games: int = stats.MIN_GAMES, tier_order=None) -> Path:
    """Write the balance report for a results folder; returns the path of the page written.

    ``out``: a file path, or a folder (the page is ``report.html``/``report.md`` in it); by
    default the results folder. Markdown figures go to ``<page stem>_files/`` beside the page.
    ``base``: the variant the others are compared with (default: second_edition when the run
    has it, else the run's first variant).
    """
    if fmt not in FORMATS:
        raise LabError(f"format \"{fmt}\" is not one of: {', '.join(FORMATS)}")
    rec = stats.load(results_dir)
    variants = rec.variants()
    if base is None:
        base = DEFAULT_BASE if DEFAULT_BASE in variants else variants[0]
    elif base not in variants:
        raise LabError(f"--base \"{base}\" is not a variant of this run (allowed: "
                       f"{', '.join(variants)})")
    tiers = list(pd.unique(rec.games["tier"]))
    names = rec.army_names()
    ct = stats.card_table(rec, by=("variant",), min_games=min_games)

    blocks = _summary(rec, variants, tiers, names, min_games)
    blocks += _variants(rec, variants, min_games)
    if len(variants) > 1:
        blocks += _changes(rec, variants, base, names, min_games)
    blocks += _armies(rec, variants, names, min_games)
    if len(tiers) > 1:
        ct_tier = stats.card_table(rec, by=("variant", "tier"), min_games=min_games)
        blocks += _skill(rec, variants, tier_order, names, min_games, ct_tier)
    blocks += _cards(ct, variants, names, min_games)
    blocks += _abilities(rec, variants, min_games)

    page = _out_path(Path(results_dir), out, fmt)
    page.parent.mkdir(parents=True, exist_ok=True)
    title = f"大天下 balance report — {Path(results_dir).resolve().name}"
    if fmt == "html":
        page.write_text(render_html(title, blocks), encoding="utf-8")
    else:
        rel = f"{page.stem}_files"
        page.write_text(render_markdown(title, blocks, page.parent / rel, rel), encoding="utf-8")
    return page


def _out_path(results: Path, out, fmt: str) -> Path:
    if out is None:
        return results / f"report.{fmt}"
    out = Path(out)
    if out.is_dir() or (not out.suffix and not out.exists()):
        return out / f"report.{fmt}"
    return out
