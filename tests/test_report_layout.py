"""The HTML report at normal window widths (issue 27, item 7): every column of the "At a glance"
tables, and their captions, is on the first screen at 1280 px (and at 1400 and 1920) — long
text wraps instead of pushing the table past the page — checked in a real browser (Debian's
Chromium through Playwright), with a screenshot saved under results/screenshots/.

Two pages: the report of a real (small) run whose variant ids and tier labels are long, and a
page of the same renderer holding the longest content the At-a-glance tables produce (five cards
"and N more" beside an army, long variant ids, three-word tier labels)."""

from __future__ import annotations

import pytest

from _support.browser import browser, screenshot_path
from _support.sim_cases import write_config
from lab.report.document import Cell, Heading, Para, Table, render_html
from lab.sim.config import load_experiment
from lab.sim.runner import run

WIDTHS = (1280, 1400, 1920)
HEIGHT = 800

GRID = """
name = "glance"
seed = 3
games = 4
armies = ["oda", "takeda", "uesugi"]
tiers = ["random", "heuristic"]
rules = "second_edition"
[grid]
walls = [6, 10]
hand_cap = [0, 7]
"""

VARIANT = "second_edition+walls=10+hand_cap=7+leader_pass=only_if_no_play"
TIER = "search(400)-vs-heuristic:persona=defensive"
CARDS = "今川義元 +11.3, 殺し間 +10.7, 兵糧攻め +9.1, 鉄砲足軽 +8.4, 本多忠勝 +7.9 and 6 more"
CAPTION = (
    "causal for the army as a whole: the lab assigns armies, opponents, seats and deals, "
    "so no game is selected and a win rate is the army's; non-mirror decisive games, "
    "95% interval clustered by deal; bold: the whole interval is outside the band; "
    "cards: those of the army whose causal value passes Benjamini–Hochberg in the "
    "direction of its deviation (next table)"
)

# what the columns' right edges, the tables' widths and their scroll boxes measure, in the page
MEASURE = """() => {
  const start = document.getElementById('at-a-glance');
  const tables = [];
  for (let el = start.nextElementSibling; el && el.tagName !== 'H2'; el = el.nextElementSibling) {
    for (const t of (el.tagName === 'TABLE' ? [el] : el.querySelectorAll('table'))) {
      const box = t.parentElement;
      const cap = t.querySelector('caption');
      tables.push({
        heads: [...t.querySelectorAll('thead th')].map(th => {
          const r = th.getBoundingClientRect();
          return {text: th.textContent, left: r.left, right: r.right};
        }),
        captionRight: cap ? cap.getBoundingClientRect().right : 0,
        scrolls: box.scrollWidth > box.clientWidth + 1,
        top: t.getBoundingClientRect().top,
      });
    }
  }
  return {tables, pageScrolls: document.documentElement.scrollWidth > window.innerWidth};
}"""


def worst_case_page() -> str:
    rows = [
        [
            VARIANT,
            TIER,
            "北条 (houjou)",
            Cell("81.5%", "[78.5%, 84.1%] n=12,800", strong=True),
            "above",
            "sure: the interval lies outside the band",
            CARDS,
        ]
    ] * 3
    cards = [
        [
            VARIANT,
            TIER,
            "雑賀孫一",
            Cell("雑賀 (saika)", "50.1% in band"),
            "above vanilla",
            Cell("+17.0", "[+8.2, +25.8]", strong=True),
            "0.0149",
            "in the opening hand in 21% of games; lab value ability off −3.1 [−6.0, −0.2]",
        ]
    ]
    moved = [
        [
            VARIANT,
            TIER,
            "army 北条 (houjou)",
            "win rate",
            Cell("+12.3", "[+8.1, +16.4] n=25,600", strong=True),
            "62.0%",
            "74.3%",
            "yes (q = 0.0001)",
        ]
    ]
    blocks = [
        Heading("At a glance"),
        Para("12,800 games · 8 variant(s) · tiers …"),
        Heading("Armies out of band", 3),
        Table(
            [
                "variant",
                "tier",
                "army",
                "win rate",
                "45%–55%",
                "how sure",
                "cards that push it there (causal)",
            ],
            rows,
            CAPTION,
        ),
        Heading("Cards that move their army (causal)", 3),
        Table(
            [
                "variant",
                "tier",
                "card",
                "army (win rate, band)",
                "measure",
                "value (pts)",
                "BH q",
                "also",
            ],
            cards,
            "causal; intervals clustered by deal",
        ),
        Heading("What each variant moved (against second_edition)", 3),
        Table(
            ["variant", "tier", "what", "measure", "change (pts)", "base", "variant", "moved (BH)"],
            moved,
            "paired deals, clustered by deal",
        ),
        Heading("First-player advantage", 3),
        Table(
            ["variant", "tier", "first player's win rate"],
            [[VARIANT, TIER, Cell("55.7%", "[53.1%, 58.2%] n=12,800")]],
            CAPTION,
        ),
        Heading("The run"),
    ]
    return render_html("大天下 balance report — worst case", blocks)


@pytest.fixture(scope="module")
def real_report(tmp_path_factory):
    from lab.report.build import build_report

    folder = tmp_path_factory.mktemp("glance")
    out = folder / "r"
    run(load_experiment(write_config(folder, GRID)), out, jobs=1)
    return build_report(out, "html", min_games=1)


def check_page(page, width: int, name: str) -> None:
    page.set_viewport_size({"width": width, "height": HEIGHT})
    page.screenshot(path=str(screenshot_path(f"{name}-{width}px.png")))
    seen = page.evaluate(MEASURE)
    assert seen["tables"], "no table under At a glance"
    assert not seen["pageScrolls"], f"the page scrolls sideways at {width} px"
    for t in seen["tables"]:
        heads = [h["text"] for h in t["heads"]]
        assert not t["scrolls"], f"{heads}: the table scrolls sideways at {width} px"
        for h in t["heads"]:
            assert 0 <= h["left"] and h["right"] <= width, (width, h)
        assert t["captionRight"] <= width, (width, heads)
    assert seen["tables"][0]["top"] < HEIGHT  # the first table starts on the first screen


@pytest.mark.parametrize("width", WIDTHS)
def test_at_a_glance_shows_every_column_of_the_worst_case(tmp_path, width):
    html = tmp_path / "worst.html"
    html.write_text(worst_case_page(), encoding="utf-8")
    with browser() as b:
        page = b.new_page()
        page.goto(html.as_uri())
        check_page(page, width, "report-at-a-glance-worst-case")


def test_at_a_glance_of_a_real_report_shows_every_column(real_report):
    with browser() as b:
        page = b.new_page()
        page.goto(real_report.resolve().as_uri())
        for width in WIDTHS:
            check_page(page, width, "report-at-a-glance-real-run")
