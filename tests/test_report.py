"""The balance report: At a glance first, every detail section after it in both formats, figures
that use their table's test, the `lab value` table when the folder holds one, and `lab report`."""

from __future__ import annotations

import json
import re
import shutil
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.patches import Rectangle
from typer.testing import CliRunner

import lab.cli as cli
from _support.synthetic import synthetic_records, write_results
from lab import stats
from lab.errors import LabError
from lab.report import build_report
from lab.report import figures as F

PNG = b"\x89PNG\r\n\x1a\n"
GLANCE = [
    "Armies out of band",
    "Cards that move their army (causal)",
    "What each variant moved (against base)",
    "Dead and rare abilities",
    "First-player advantage",
]
SECTIONS = [
    "At a glance",
    "Run",
    "Variants",
    "Variant changes",
    "What moved (base → walls6)",
    "Armies",
    "Tier stability",
    "Cards (observational)",
    "Cards under base / random-vs-random (observational)",
    "Opening-hand effect (not a cause)",
    "Dead and rare abilities",
]
TIERS = ["random-vs-random", "heuristic-vs-heuristic"]
# first player, game length, change, ratings; per variant × tier: matchups, opening hand, IWD
FIGURES = 4 + 3 * 4


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    g, c = synthetic_records(deals=8)
    return write_results(tmp_path_factory.mktemp("run") / "results", g, c, chunk_games=300)


SOLO = {"solo": ("heuristic", 1.0, 1.0)}


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """Two armies, two variants, one tier: a quick report (6 figures)."""
    g, c = synthetic_records(("oda", "takeda"), deals=3, tiers=SOLO)
    return write_results(tmp_path_factory.mktemp("small") / "results", g, c, chunk_games=40)


@pytest.fixture(scope="module")
def html_page(results):
    return build_report(results, "html")


class Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.headings, self.levels, self.imgs, self.stack, self.text = [], [], [], [], []

    def handle_starttag(self, tag, attrs):
        if tag in ("h1", "h2", "h3"):
            self.stack.append(tag)
            self.text = []
        if tag == "img":
            self.imgs.append(dict(attrs)["src"])

    def handle_endtag(self, tag):
        if tag in ("h1", "h2", "h3") and self.stack:
            self.stack.pop()
            self.headings.append("".join(self.text))
            self.levels.append(tag)

    def handle_data(self, data):
        if self.stack:
            self.text.append(data)


def parse(page: Path) -> Collector:
    p = Collector()
    p.feed(page.read_text(encoding="utf-8"))
    return p


def test_at_a_glance_is_the_first_section_and_every_section_follows(html_page, results):
    assert html_page == results / "report.html"
    p = parse(html_page)
    h2 = [h for h, lv in zip(p.headings, p.levels) if lv == "h2"]
    assert h2[0] == "At a glance" and h2[1] == "Run"
    first_detail = p.headings.index("Run")
    assert p.headings[2:first_detail] == GLANCE
    for s in SECTIONS:
        assert s in p.headings, s
    detail = p.headings[first_detail:]
    assert [h for h in detail if h in SECTIONS] == SECTIONS[1:]  # in this order
    assert len(p.imgs) == FIGURES
    assert all(src.startswith("data:image/png;base64,") for src in p.imgs)  # self-contained
    assert not list(results.glob("report_files"))


def test_the_first_screen_says_how_sure_and_what_is_observational(html_page):
    page = html_page.read_text(encoding="utf-8")
    glance = page.split('id="run"')[0]
    assert "clustered by deal" in glance and "causal" in glance
    notes = re.sub(r'<span class="nobr">|</span>', "", glance)  # intervals kept on one line
    assert re.search(r"<small>\[\d+\.\d%, \d+\.\d%\] n=[\d,]+</small>", notes)
    # no lab value table: the causes are not measured — the page says so and gives the command
    # that measures them; the opening-hand effect is never offered as a cause
    cards = glance.split("Cards that move their army")[1].split("What each variant")[0]
    assert "<table>" not in cards and "opening hand = " not in cards
    assert (
        "Not measured under base / random-vs-random; base / heuristic-vs-heuristic; walls6 / "
        "random-vs-random; walls6 / heuristic-vs-heuristic"
    ) in cards
    assert "lab value CONFIG --out" in cards and "/value`" in cards
    assert "are not causes" in cards
    assert "observational" in page.split('id="cards-observational"')[1][:3000]
    assert "winner − loser" in page  # the draw-on-win bias, measured
    # every table on the first screen says whether its numbers are causal or observational
    captions = re.findall(r"<caption>(.*?)</caption>", glance)
    assert len(captions) == glance.count("<table>") >= 2
    assert all(c.startswith(("causal", "observational")) for c in captions), captions


def test_html_report_shows_intervals_sample_sizes_thin_cells_and_tiers(html_page):
    page = html_page.read_text(encoding="utf-8")
    assert 'class="thin' in page  # 8 deals: many cells below 100 games
    assert "百万一心" in page and "織田 (oda)" in page
    for tier in TIERS:
        assert f"<td class=\"text\">{tier}</td>" in page
    assert "pooled:" not in page  # nothing here pools tiers


def test_markdown_twin_has_the_same_sections_and_writes_its_figures_beside_it(
    results, tmp_path, html_page
):
    page = build_report(results, "md", out=tmp_path / "out")
    assert page == tmp_path / "out" / "report.md"
    text = page.read_text(encoding="utf-8")
    heads = re.findall(r"^#{2,3} (.+)$", text, re.M)
    assert heads == parse(html_page).headings[1:]  # HTML and Markdown in step
    assert heads[0] == "At a glance"
    links = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", text)
    assert len(links) == FIGURES
    for link in links:
        assert link.startswith("report_files/")
        assert (page.parent / link).read_bytes().startswith(PNG)
    assert "†" in text and "| variant | tier | games |" in text


def value_table(rec: stats.Records) -> pd.DataFrame:
    """A hand-built `lab value` table for the run: 織田信長 +9 points above vanilla (q 0.001),
    足軽6 −6 (q 0.01), every other card of oda 0 (q 0.9), under every variant and tier."""
    rows = []
    ct = stats.card_table(rec)
    for (v, t), part in ct.groupby(["variant", "tier"]):
        for _, r in part[part.army == "oda"].iterrows():
            value, q = {"織田信長": (0.09, 0.001), "足軽6": (-0.06, 0.01)}.get(
                r["card"], (0.0, 0.9)
            )
            for contrast in ("above_vanilla", "ability_off"):
                rows.append(
                    {
                        "variant": v,
                        "tier": t,
                        "army": "oda",
                        "army_name": "織田",
                        "card_id": r["card_id"],
                        "card": r["card"],
                        "copies": r["copies"],
                        "contrast": contrast,
                        "replacement": "足軽5" if contrast == "above_vanilla" else "",
                        "value": value if contrast == "above_vanilla" else value / 3,
                        "lo": value - 0.03,
                        "hi": value + 0.03,
                        "se": 0.015,
                        "p": q / 10,
                        "q": q,
                        "games": 400,
                        "deals": 200,
                        "base_rate": 0.55,
                    }
                )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def valued(results, tmp_path_factory):
    folder = tmp_path_factory.mktemp("valued") / "results"
    shutil.copytree(results, folder)
    (folder / "value").mkdir()
    value_table(stats.load(results)).to_parquet(folder / "value" / "value.parquet")
    return build_report(folder, "md", min_games=40)  # oda's rows count 44–48 games: judged


def test_a_value_table_in_the_folder_leads_the_card_answers(valued):
    text = valued.read_text(encoding="utf-8")
    glance = text.split("\n## Run")[0]
    cards = glance.split("### Cards that move their army (causal)")[1].split("###")[0]
    assert "above vanilla" in cards
    lines = [ln for ln in cards.splitlines() if ln.startswith("| base | random-vs-random")]
    assert [ln.split(" | ")[2] for ln in lines] == ["織田信長", "足軽6"]  # up first, then down
    assert "ability off: +3.0" in lines[0]
    armies = glance.split("### Armies out of band")[1].split("###")[0]
    oda = [ln for ln in armies.splitlines() if ln.startswith("| base | random-vs-random | 織田")]
    assert len(oda) == 1 and "above" in oda[0]  # 71.7% over 46 games
    assert oda[0].endswith("| 織田信長 +9.0 |")  # the card that pushes it there
    assert "## Card value (lab value)" in text
    # every table of the first screen is labelled causal or observational (its caption)
    captions = re.findall(r"^\|.*\|\n\n\*(.+)\*$", glance, re.M)
    assert len(captions) == len(re.findall(r"^\|---", glance, re.M)) >= 4
    assert all(c.startswith(("causal", "observational")) for c in captions), captions
    assert re.search(r"^### above vanilla — base / random-vs-random$", text, re.M)
    assert "No card's value differs" not in cards  # every group is covered by lab value
    # only oda's cards were valued: the page says so
    assert re.search(
        r"lab value measured only some of the cards with an ability \(base / "
        r"random-vs-random: \d+ of \d+ cards",
        cards,
    )


def test_patched_variants_are_shown_with_their_patch(tmp_path):
    g, c = synthetic_records(("oda", "takeda"), deals=3, tiers=SOLO)
    g["patch"] = np.where(g["variant"] == "walls6", "nerf", "base")
    page = build_report(write_results(tmp_path / "p", g, c), "md")
    assert "walls6 (patch nerf)" in page.read_text(encoding="utf-8")


def test_a_run_with_one_variant_and_one_tier_skips_the_comparisons(tmp_path):
    g, c = synthetic_records(
        ("oda", "takeda"),
        deals=4,
        variants={"only": {"walls": 7, "first_edge": 0.2, "shift": {}}},
        tiers={"solo": ("random", 1.0, 1.0)},
    )
    p = parse(build_report(write_results(tmp_path / "r", g, c, layout="merged"), "html"))
    assert p.headings[1] == "At a glance" and "Variants" in p.headings
    assert "Variant changes" not in p.headings and "Tier stability" not in p.headings


def test_bad_format_and_base_are_clear_errors(results):
    with pytest.raises(LabError, match="format \"pdf\" is not one of: html, md"):
        build_report(results, "pdf")
    with pytest.raises(
        LabError,
        match=r"--base \"x\" is not a variant of this run \(allowed: "
        r"base, walls6\)",
    ):
        build_report(results, "html", base="x")


def test_lab_report_command(small, tmp_path):
    runner = CliRunner()
    res = runner.invoke(
        cli.app,
        [
            "report",
            str(small),
            "--format",
            "md",
            "--out",
            str(tmp_path / "r.md"),
            "--base",
            "walls6",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "wrote" in res.stdout and (tmp_path / "r.md").exists()
    assert (tmp_path / "r_files").is_dir()
    assert "walls6 → base" in (tmp_path / "r.md").read_text(encoding="utf-8")
    bad = runner.invoke(cli.app, ["report", str(tmp_path / "missing")])
    assert bad.exit_code == 2
    assert bad.stderr.startswith("error: ") and len(bad.stderr.strip().splitlines()) == 1
    assert "results folder not found" in bad.stderr


# ------------------------------------------------------------------------------------ figures


def test_change_bars_are_coloured_by_the_tables_bh_test_not_the_raw_interval():
    changes = pd.DataFrame(
        {
            "tier": "t",
            "kind": "army",
            "item": ["oda", "takeda"],
            "army": ["oda", "takeda"],
            "change": [0.05, -0.05],
            "change_lo": [0.01, -0.09],
            "change_hi": [0.09, -0.01],
            "moved": [False, True],
            "thin": False,
        }
    )
    fig = F.change_figure(changes)
    bars = [p for p in fig.axes[0].patches if isinstance(p, Rectangle)]
    colors = [tuple(np.round(b.get_facecolor()[:3], 3)) for b in bars]
    grey, red = (np.round(np.array(F.mpl.colors.to_rgb(c)), 3) for c in (F.GREY, F.RED))
    assert colors[0] == tuple(grey)  # the raw interval excludes 0, but BH did not pass it
    assert colors[1] == tuple(red)


def test_change_panels_put_each_row_on_the_line_its_label_names():
    # what_moved ranks rows per tier, so the two tiers list them in different orders
    rows = [
        ("t1", "army", "oda", "oda", 0.02),
        ("t1", "overall", "draw rate", "", 0.001),
        ("t1", "overall", "first player score", "", 0.03),
        ("t2", "overall", "first player score", "", 0.10),
        ("t2", "army", "oda", "oda", -0.04),
        ("t2", "overall", "draw rate", "", 0.002),
    ]
    changes = pd.DataFrame(rows, columns=["tier", "kind", "item", "army", "change"])
    changes = changes.assign(
        change_lo=changes.change - 0.01, change_hi=changes.change + 0.01, moved=False, thin=False
    )
    fig = F.change_figure(changes)
    ticks = {
        t.get_text(): y for t, y in zip(fig.axes[0].get_yticklabels(), fig.axes[0].get_yticks())
    }
    for ax, tier in zip(fig.axes, ("t1", "t2")):
        bars = {
            round(p.get_y() + p.get_height() / 2, 6): p.get_width()
            for p in ax.patches
            if isinstance(p, Rectangle)
        }
        for item, change in changes.loc[changes.tier == tier, ["item", "change"]].itertuples(
            index=False
        ):
            assert bars[round(ticks[item], 6)] == pytest.approx(100 * change), (tier, item)


def test_cards_are_coloured_relative_to_their_armys_baseline():
    ct = pd.DataFrame(
        {
            "army": "oda",
            "card": ["a", "b", "c"],
            "iwd": [0.05, 0.30, 0.12],
            "iwd_lo": [0.0, 0.25, 0.05],
            "iwd_hi": [0.1, 0.35, 0.19],
            "iwd_base": 0.12,
            "iwd_flag": [True, True, False],
            "thin": False,
        }
    )
    fig = F.forest_figure(ct)
    dots = {
        ln.get_ydata()[0]: ln.get_color()
        for ln in fig.axes[0].lines
        if len(ln.get_xdata()) == 1 and ln.get_marker() == "o"
    }
    # sorted by IWD: a (y 0) is flagged *below* the baseline although IWD > 0 → red
    assert dots[0] == F.RED and dots[2] == F.BLUE and dots[1] == F.DARK


def test_first_player_dots_are_coloured_by_the_tables_test():
    vt = pd.DataFrame(
        {
            "variant": ["edge", "even", "thin"],
            "first_win": [0.58, 0.52, 0.7],
            "first_win_lo": [0.54, 0.48, 0.6],
            "first_win_hi": [0.62, 0.56, 0.8],
            "first_win_n": [500, 500, 40],
        }
    )
    ax = F.first_player_figure(vt, 100).axes[0]
    dots = [ln.get_color() for ln in ax.lines if ln.get_marker() == "o"]
    # blue: the interval excludes 50% (bold in the table); dark: it does not; grey: thin, even
    # though its interval excludes 50%
    assert dots == [F.BLUE, F.DARK, F.GREY]


def test_rates_are_dots_and_histograms_keep_their_tail():
    vt = pd.DataFrame(
        {
            "variant": ["v", "w"],
            "first_win": [0.55, 0.6],
            "first_win_lo": [0.5, 0.55],
            "first_win_hi": [0.6, 0.65],
            "first_win_n": [500, 500],
        }
    )
    ax = F.first_player_figure(vt, 100).axes[0]
    assert not [p for p in ax.patches if isinstance(p, Rectangle)]  # no truncated bars
    tail = np.concatenate([np.full(95, 10), np.arange(40, 45)])
    fig = F.length_figure({"leader_turns": {"v": tail}, "battles": {"v": tail}})
    assert fig.axes[0].get_xlim()[1] >= 44  # the longest games are drawn where they fell
    # long games (legacy rules, random bots: up to ~100 leader turns): every bin spans the same
    # whole number of lengths, so a run where each length is equally common draws a flat line
    flat = np.repeat(np.arange(0, 100), 3)
    bins = F.length_bins(flat)
    assert len(bins) - 1 <= 60 and (np.diff(bins) == np.diff(bins)[0]).all()
    assert bins[-1] > flat.max() and (bins == np.round(bins)).all()
    counts, _ = np.histogram(flat, bins)
    assert counts.sum() == len(flat) and len(set(counts)) == 1
    assert list(F.length_bins(np.array([3, 7, 12]))) == list(range(14))  # one unit wide


def _glyph_warnings(make) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.png(make())
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


def test_japanese_names_render_without_missing_glyphs(results, monkeypatch):
    rec = stats.load(results)
    ct = stats.card_table(rec)
    mt = stats.matchup_table(rec)
    names = rec.army_names()
    assert names["oda"] == "織田"
    one = dict(variant="base", tier="random-vs-random")

    def forest():
        return F.forest_figure(
            ct[(ct.variant == "base") & (ct.tier == one["tier"])],  # noqa
            names,
        )

    def heat():
        return F.matchup_heatmap(
            stats.matchup_matrix(mt, **one),  # noqa: E731
            stats.matchup_matrix(mt, "win_rate_n", **one),
            100,
            names,
        )

    assert _glyph_warnings(forest) == []
    assert _glyph_warnings(heat) == []
    # the check can fail: without the Japanese font the same figure loses its glyphs
    monkeypatch.setattr(F, "FONT_RC", {"font.family": ["DejaVu Sans"]})
    assert _glyph_warnings(heat)


def test_report_reads_both_layouts_alike(small, tmp_path):
    g, c = stats.load(small).games, stats.load(small).cards
    a = build_report(small, "md", out=tmp_path / "a")
    b = build_report(write_results(tmp_path / "b", g, c, layout="merged"), "md")

    def strip(p):
        return re.sub(
            r"Results: \S+|--out \S+",
            "",  # noqa: E731  (the folders)
            Path(p).read_text(encoding="utf-8"),
        )

    strip_title = lambda s: s.split("\n", 1)[1]  # noqa: E731
    assert strip_title(strip(a)) == strip_title(strip(b))


def test_a_group_lab_value_did_not_measure_gets_the_command_for_its_tier(results, tmp_path):
    """lab value covered the random tier only: the heuristic tier's causes are not measured,
    and the page gives the command with that tier's short name and this folder's value/."""
    folder = tmp_path / "partly"
    shutil.copytree(results, folder)
    man = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    man["config"] = {
        "source": "configs/my run.toml",
        "tiers": [
            {"label": "random-vs-random", "a": {"kind": "random"}, "b": {"kind": "random"}},
            {
                "label": "heuristic-vs-heuristic",
                "a": {"kind": "heuristic"},
                "b": {"kind": "heuristic"},
            },
        ],
    }
    (folder / "manifest.json").write_text(json.dumps(man), encoding="utf-8")
    (folder / "value").mkdir()
    table = value_table(stats.load(results))
    table[table.tier == "random-vs-random"].to_parquet(folder / "value" / "value.parquet")
    text = build_report(folder, "md", min_games=40).read_text(encoding="utf-8")
    cards = text.split("### Cards that move their army (causal)")[1].split("###")[0]
    assert "| base | random-vs-random | 織田信長 |" in cards  # measured: ranked
    assert (
        "Not measured under base / heuristic-vs-heuristic; walls6 / heuristic-vs-heuristic" in cards
    )
    assert f"`lab value 'configs/my run.toml' --tier heuristic --out {folder}/value`" in cards
    assert "heuristic-vs-heuristic | 足軽6" not in cards  # no opening-hand stand-in
    armies = text.split("### Armies out of band")[1].split("###")[0]
    rows = [ln for ln in armies.splitlines() if "-vs-" in ln]
    heuristic = [ln for ln in rows if "| heuristic-vs-heuristic |" in ln]
    assert heuristic and all(
        ln.endswith("| not measured: no lab value table (next table) |") for ln in heuristic
    )
    assert not any("not measured" in ln for ln in rows if ln not in heuristic)
