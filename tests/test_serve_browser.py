"""lab serve in a real browser: Playwright drives Debian's Chromium (/usr/bin/chromium; `.ci/run`
installs it — no browser is downloaded) against a server on 127.0.0.1 at a free port, which the
tests stop. A designer's steps, each by clicking: play a whole match, change a toggle and play
again on the same screen, download the replay and the scenario, play Rumble Nation, start a small
experiment and watch it finish, open its report, and see a bad config's one-line error.

Screenshots a person can look at are written to tests/output/serve/; with UPDATE_SCREENSHOTS=1
the README's one (docs/img/serve-play.png) is written too.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SHOTS = Path(__file__).parent / "output" / "serve"
README_SHOT = Path(__file__).parent.parent / "docs" / "img" / "serve-play.png"
SMALL = """# a small experiment for the browser test: 3 armies round robin, 40 deals per pair
name = "small"
seed = 5
games = 40
rules = "second_edition"
armies = ["oda", "takeda", "uesugi"]
bots = "heuristic"
chunk_size = 20
"""

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing (.ci/run installs chromium)"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import uvicorn

    from lab.serve import create_app, wait_warm

    root = tmp_path_factory.mktemp("serve")
    configs = root / "configs"
    configs.mkdir()
    (configs / "small.toml").write_text(SMALL, encoding="utf-8")
    app = create_app(root / "results", [configs])
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    end = time.monotonic() + 30
    while not srv.started and time.monotonic() < end:
        time.sleep(0.05)
    assert srv.started, "the server did not start"
    assert wait_warm(app, 300)
    yield {"url": f"http://127.0.0.1:{port}", "results": root / "results", "app": app}
    srv.should_exit = True
    thread.join(60)
    assert not thread.is_alive(), "the server did not stop"


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    context.close()


def shot(pg, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=True)
    return path


def click_until_the_end(pg, most: int = 400, snapshot_at: int | None = None) -> int:
    """Click the first legal action until the result shows; the number of clicks."""
    clicks = 0
    while not pg.locator("#result").count():
        assert clicks < most, "the match did not end"
        step = pg.locator("#match").get_attribute("data-step")
        pg.locator("button.action").first.click()
        pg.wait_for_function(
            "s => { const m = document.querySelector('#match');"
            " return m && (m.dataset.step !== s || document.querySelector('#result')); }",
            arg=step,
        )
        clicks += 1
        if clicks == snapshot_at:
            path = shot(pg, "play-mid-match")
            if os.environ.get("UPDATE_SCREENSHOTS") == "1":
                README_SHOT.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, README_SHOT)
    return clicks


def test_play_a_match_to_the_end_then_again_with_a_changed_toggle(server, page):
    pg = page
    pg.goto(server["url"] + "/play")
    pg.select_option("#vs", "takeda")
    pg.fill("input[name=seed]", "7")
    pg.click("#start")
    pg.wait_for_selector("#match")
    assert "second_edition" in pg.inner_text(".matchhead")
    assert "7/7" in pg.inner_text("#seat-A")
    hand = pg.inner_text("#seat-A .hand")
    assert "手札" in hand and pg.locator("#seat-B .hand").count() == 0  # the bot's hand: no
    clicks = click_until_the_end(pg, snapshot_at=3)
    assert clicks >= 3
    head = pg.inner_text("#result h2")
    assert head.split(" — ")[0] in ("You win", "You lose", "Draw")
    assert "合戦の記録" in pg.inner_text("details.log summary")
    shot(pg, "play-result")
    with pg.expect_download() as d:
        pg.click("#replay")
    replay = json.loads(Path(d.value.path()).read_text(encoding="utf-8"))
    assert replay["format"] == "daitenka-lab/play-replay" and replay["status"] == "finished"
    assert replay["seed"] == 7 and replay["armies"]["B"]["key"] == "takeda"
    with pg.expect_download() as d:
        pg.click("#scenario")
    scenario = Path(d.value.path()).read_text(encoding="utf-8")
    from lab.games import each_outcome

    written = next((server["results"] / "scenarios").glob("*.toml"))
    assert written.read_text(encoding="utf-8") == scenario
    assert all(o.passed for o in each_outcome([written]))
    # change one condition on the same screen and play again
    pg.fill("#rule_walls", "10")
    pg.select_option("#rule_mulligan", "on")
    pg.click("#again")
    pg.wait_for_selector("#match[data-step]")
    assert "walls=10" in pg.inner_text(".matchhead") and "mulligan=on" in pg.inner_text(
        ".matchhead"
    )
    assert "10/10" in pg.inner_text("#seat-A") and "10/10" in pg.inner_text("#seat-B")
    assert pg.input_value("#rule_walls") == "10"  # the form keeps the changed toggle
    click_until_the_end(pg)
    shot(pg, "play-again-walls10")


def test_rumble_nation_by_clicking(server, page):
    pg = page
    pg.goto(server["url"] + "/play")
    with pg.expect_navigation():
        pg.select_option("select[name=game]", "rumble_nation")
    assert pg.locator("#rule_reroll").count() == 1
    pg.select_option("select[name=seat]", "P2")
    pg.fill("#rule_players", "3")
    pg.click("#start")
    pg.wait_for_selector("#match")
    assert "you P2" in pg.inner_text(".matchhead")
    assert pg.locator(".die").count() == 3
    click_until_the_end(pg)
    assert "war phase" in pg.inner_text("#result")
    shot(pg, "rumble-nation-result")


def test_a_bad_config_shows_its_one_line_error(server, page):
    pg = page
    pg.goto(server["url"] + "/experiments")
    pg.fill("#name", "typo.toml")
    pg.fill("#text", SMALL.replace("games = 40", "games = -3"))
    pg.click("#check")
    err = pg.locator(".error")
    err.wait_for()
    line = err.inner_text()
    assert line.startswith("error: ") and "games" in line and "\n" not in line.strip()
    from lab.errors import LabError, parse_toml
    from lab.sim import config as sim_config

    with pytest.raises(LabError) as e:
        sim_config.from_dict(
            parse_toml(SMALL.replace("games = 40", "games = -3"), "x"),
            str(server["results"] / "configs" / "typo.toml"),
        )
    assert line == "error: " + " ".join(str(e.value).split()).replace(
        str(server["results"] / "configs" / "typo.toml"), "uploads/typo.toml"
    )
    shot(pg, "experiments-bad-config")
    # the page keeps working: the fixed config checks and saves
    pg.fill("#text", SMALL)
    pg.click("#save")
    assert "OK — small:" in pg.inner_text("#checked")


def test_start_a_small_experiment_watch_it_finish_and_open_its_report(server, page):
    pg = page
    pg.goto(server["url"] + "/experiments")
    pg.select_option("#config", "configs/small.toml")
    pg.click("#run")
    pg.wait_for_selector("[data-job]")
    state = pg.locator("[data-field=state]")
    seen = set()
    end = time.monotonic() + 600
    while time.monotonic() < end:
        seen.add(state.inner_text())
        if seen & {"done", "failed", "interrupted"}:
            break
        if pg.locator("[data-field=counts]").inner_text():
            seen.add("counted")
        pg.wait_for_timeout(200)
    assert "done" in seen, f"the job ended as {seen}: {pg.inner_text('[data-field=message]')}"
    assert pg.inner_text("[data-field=counts]") == "360 / 360 games"
    assert "played 360 games" in pg.inner_text("[data-field=message]")
    assert "width: 100%" in pg.locator("[data-field=fill]").get_attribute("style")
    shot(pg, "experiment-done")
    pg.click("#answers")
    assert "per army — win rate" in pg.inner_text("main")
    pg.set_default_timeout(300_000)  # the report computes its figures first (a busy machine)
    with pg.expect_navigation(url="**/answers/small/report"):
        pg.click("#build-report")
    assert "balance report" in pg.title()
    assert pg.locator("img[src^='data:image/png']").count() > 0  # figures included
    shot(pg, "experiment-report")
