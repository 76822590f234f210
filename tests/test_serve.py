"""lab serve without a browser (Starlette's test client): what a seat may see (rules.md R1) never
reaches the page or its JSON, the runs it starts are `lab run`'s (identical records; stop and
resume; a failed start is one line and the page goes on), configs are checked with the CLI's own
one-line errors, and nothing outside the results and configs folders is read or written."""

from __future__ import annotations

import json
import re
import time
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

warnings.filterwarnings("ignore", message=".*httpx.*")  # Starlette 1.x prefers httpx2

from starlette.testclient import TestClient  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import lab.cli as cli  # noqa: E402
from lab.errors import LabError, parse_toml  # noqa: E402
from lab.serve import create_app  # noqa: E402
from lab.serve.paths import MAX_UPLOAD, Roots  # noqa: E402
from lab.sim import config as sim_config  # noqa: E402
from _support.sim_cases import assert_same_records  # noqa: E402

SMALL = """name = "small"
seed = 11
games = 40
rules = "second_edition"
armies = ["oda", "takeda", "uesugi"]
bots = "heuristic"
chunk_size = 20
"""


@pytest.fixture()
def folders(tmp_path):
    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "small.toml").write_text(SMALL, encoding="utf-8")
    (configs / "other.toml").write_text(
        SMALL.replace("seed = 11", "seed = 12").replace('"small"', '"other"'), encoding="utf-8"
    )
    (tmp_path / "secret.toml").write_text('cards = ["秘密"]\n', encoding="utf-8")
    return tmp_path / "results", configs


@pytest.fixture()
def client(folders):
    results, configs = folders
    app = create_app(results, [configs], warm=False)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c


def error_line(html: str) -> str:
    m = re.search(r'class="error"[^>]*>error: ([^<]*)<', html)
    assert m, "no error line on the page"
    return (
        m.group(1)
        .replace("&#34;", '"')
        .replace("&#39;", "'")
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", '"')
    )


def new_match(client, **form) -> str:
    r = client.post("/play", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text[:400]
    return r.headers["location"].split("m=")[1]


def act(client, match_id: str, view: dict, k: int) -> dict:
    r = client.post(
        f"/play/{match_id}/act",
        data={"i": str(k), "step": str(view["step"])},
        headers={"X-Fragment": "1"},
    )
    assert r.status_code == 200, r.text[:400]
    return client.get(f"/play/{match_id}.json").json()


# ------------------------------------------------------------------------------ 試験場: R1


def _hidden_names(match) -> set[str]:
    """Names of the bot's cards the human's seat may not see now (rules.md R1): its hand
    cards not known to be there, its deck and its walls — less any name shown legitimately
    (a copy in a public zone or the human's hand, or named by the seat's narration)."""
    from lab.games.daitenka.play.narrate import Narrator
    from lab.games.daitenka.play.record import replay_game

    m = match.m
    game, me, opp = m.game, m.human, m.bot_seat
    hidden = set(game.zone(opp, "hand")) - set(game.view.known_hand(me))
    hidden |= set(game.zone(opp, "deck")) | set(game.zone(opp, "walls"))
    obs = game.observation(me)
    shown = set(obs["players"][me]["hand"]) | set(obs["players"][opp]["known_hand"])
    for seat in "AB":
        p = obs["players"][seat]
        shown |= set(p["camp_up"]) | set(p["camp_down"]) | set(p["graveyard"])
        shown |= set(p["logistics"]) | ({p["castle"]} if p["castle"] else set())
        shown |= set(obs["field"]["cards"][seat])
    told = " ".join(line.text for line in Narrator(replay_game(m.rec), me).take())
    return {n for n in hidden - shown if not re.search(re.escape(n) + r"(?![0-9])", told)}


@pytest.mark.parametrize("seat", ["A", "B"])
def test_the_page_and_its_json_show_only_what_the_seat_may_see(client, seat):
    """R1: a player sees their own hand and the public zones; never the opponent's hand, a
    deck's order or a wall card — checked at every decision of a whole match, in the page's
    HTML and in its JSON. The seed (which decides every deal) is shown only at the end."""
    match_id = new_match(client, game="daitenka", army="oda", vs="takeda", seat=seat)
    match, _ = client.app.state.lab.matches.get(match_id)
    view = client.get(f"/play/{match_id}.json").json()
    decisions = 0
    while True:
        page = client.get(f"/play?m={match_id}").text
        raw = json.dumps(view, ensure_ascii=False)
        assert set(view["seats"][match.m.bot_seat]) >= {"hand_count", "deck_count", "walls"}
        assert "hand" not in view["seats"][match.m.bot_seat]
        assert not ({"deck", "walls_cards"} & set(view["seats"][match.m.bot_seat]))
        assert view["seed"] is None if not view["over"] else view["seed"] == match.m.seed
        for name in _hidden_names(match):
            pattern = re.escape(name) + r"(?![0-9])"
            assert not re.search(pattern, raw), f"{name} (hidden) is in the JSON"
            assert not re.search(pattern, page), f"{name} (hidden) is in the page"
        if view["over"]:
            break
        decisions += 1
        # vary the human's choices so the match sees battles, tactics and passes
        view = act(client, match_id, view, (decisions * 7) % len(view["legal"]))
    assert decisions > 3 and view["result"]["head"] in ("You win", "You lose", "Draw")
    assert client.get(f"/play/{match_id}/replay").status_code == 200  # offered at the end


def test_the_replay_and_scenario_are_offered_only_at_the_end(client, folders):
    results, _ = folders
    match_id = new_match(client, game="daitenka", army="oda", vs="uesugi", seed="3")
    r = client.get(f"/play/{match_id}/replay", headers={"accept": "application/json"})
    assert r.status_code == 409 and "offered when the match is over" in r.json()["error"]
    view = client.get(f"/play/{match_id}.json").json()
    assert view["seed"] == 3  # chosen by the user: nothing to hide
    while not view["over"]:
        view = act(client, match_id, view, 0)
    r = client.get(f"/play/{match_id}/replay")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    from lab.games.daitenka.play.record import load_record, replay_game

    saved = results / "replays" / r.headers["content-disposition"].split('"')[1]
    assert json.loads(saved.read_text(encoding="utf-8")) == json.loads(r.text)
    rec = load_record(saved)
    assert replay_game(rec).summary() == view["result"]["summary"]
    r = client.get(f"/play/{match_id}/scenario")
    assert r.status_code == 200
    from lab.games import each_outcome

    written = next((results / "scenarios").glob("*.toml"))
    assert written.read_text(encoding="utf-8") == r.text
    assert all(o.passed for o in each_outcome([written]))


def test_a_toggle_changed_on_the_same_screen_plays_the_next_match_under_it(client):
    first = new_match(client, game="daitenka", army="oda", vs="takeda", seed="5")
    view = client.get(f"/play/{first}.json").json()
    assert view["rules"] == "second_edition" and view["seats"]["A"]["walls_max"] == 7
    page = client.get(f"/play?m={first}").text
    assert 'name="rule_walls"' in page and 'value="7"' in page  # the form, prefilled
    again = new_match(
        client,
        game="daitenka",
        army="oda",
        vs="takeda",
        seed="5",
        rule_walls="10",
        rule_logistics="on",
    )
    view = client.get(f"/play/{again}.json").json()
    assert view["rules"] == "second_edition+walls=10+logistics=on"
    assert view["seats"]["A"]["walls_max"] == 10 and view["seats"]["A"]["walls"] == 10


def test_every_toggle_is_offered_with_its_allowed_values(client):
    from lab.games.rumble_nation.rules import RNRules
    from lab.games.daitenka.rules import CHOICES, RANGES, RuleSet
    from dataclasses import fields

    page = client.get("/play").text
    for f in fields(RuleSet):
        assert f'name="rule_{f.name}"' in page
    for key, values in CHOICES.items():
        assert " | ".join(values) in page, key
    for key, (lo, hi) in RANGES.items():
        assert f'min="{lo}" max="{hi}"' in page, key
    page = client.get("/play?game=rumble_nation").text
    for f in fields(RNRules):
        assert f'name="rule_{f.name}"' in page


def test_bad_settings_are_the_one_line_errors_of_lab_play(client):
    r = client.post("/play", data={"game": "daitenka", "rule_walls": "13"})
    assert r.status_code == 400
    assert error_line(r.text) == "walls = 13 is not allowed; allowed values: whole numbers 1–12"
    r = client.post("/play", data={"game": "daitenka", "bot": "wizard"})
    from lab.games.daitenka.play.options import parse_bot_option

    with pytest.raises(LabError) as e:
        parse_bot_option("wizard")
    assert r.status_code == 400 and error_line(r.text) == " ".join(str(e.value).split())
    assert client.get("/play").status_code == 200  # and the page goes on


def test_a_stale_click_does_not_play_twice(client):
    match_id = new_match(client, game="daitenka", army="oda", vs="takeda", seed="8")
    view = client.get(f"/play/{match_id}.json").json()
    after = act(client, match_id, view, 0)
    r = client.post(
        f"/play/{match_id}/act",
        data={"i": "0", "step": str(view["step"])},
        headers={"X-Fragment": "1"},
    )
    assert r.status_code == 400 and "already taken" in r.text
    assert client.get(f"/play/{match_id}.json").json()["step"] == after["step"]


def test_rumble_nation_in_the_page(client):
    match_id = new_match(client, game="rumble_nation", seat="P2", rule_players="3", bot="random")
    view = client.get(f"/play/{match_id}.json").json()
    assert view["you"] == "P2" and view["rules"].startswith("base_2p+players=3")
    assert view["seed"] is None and view["dice"] and len(view["dice"]) == 3
    while not view["over"]:
        assert view["to_move"] == "P2" and view["legal"]
        view = act(client, match_id, view, 0)
    assert view["result"]["winner"] in ("P1", "P2", "P3") and view["seed"] is not None
    assert len(view["result"]["war"]) == 11
    r = client.get(f"/play/{match_id}/replay")
    assert r.status_code == 200 and f"seed {view['seed']}" in r.text


def test_a_deck_file_uploaded_for_play(client, folders):
    results, _ = folders
    deck = Path("lab/games/daitenka/cards/decks/oda.toml").read_text(encoding="utf-8")
    r = client.post(
        "/play/deck",
        files={"deck": ("my_oda.toml", deck.encode(), "text/plain")},
        data={"game": "daitenka"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and "army=deck%3Amy_oda.toml" in r.headers["location"]
    assert (results / "decks" / "my_oda.toml").read_text(encoding="utf-8") == deck
    match_id = new_match(client, game="daitenka", army="deck:my_oda.toml", vs="takeda")
    assert client.get(f"/play/{match_id}.json").json()["seats"]["A"]["key"] == "my_oda"
    bad = deck.replace('"足軽6" = 2', '"足軽6" = 9')
    r = client.post(
        "/play/deck",
        files={"deck": ("bad.toml", bad.encode(), "text/plain")},
        data={"game": "daitenka"},
    )
    assert r.status_code == 400 and "bad.toml" in error_line(r.text)
    assert not (results / "decks" / "bad.toml").exists()
    r = client.post("/play", data={"game": "daitenka", "army": "deck:../../secret.toml"})
    assert r.status_code == 400 and "outside" in error_line(r.text)


# ------------------------------------------------------------------------------ safety


def test_paths_never_lead_out_of_the_roots(tmp_path):
    roots = Roots.of(tmp_path / "results", [tmp_path / "configs"])
    for bad in ("../x", "/etc", "a/../../x", "..", "a\\..\\x", "a\x00b"):
        with pytest.raises(LabError):
            roots.result(bad)
    for bad in (
        "configs/../secret.toml",
        "configs//etc/passwd.toml",
        "uploads/../x.toml",
        "/etc/passwd",
        "other/x.toml",
        "configs5/x.toml",
    ):
        with pytest.raises(LabError):
            roots.config(bad)
    (tmp_path / "configs").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "configs" / "link").symlink_to(tmp_path / "outside")
    with pytest.raises(LabError, match="leads outside"):
        roots.config("configs/link/x.toml")


def test_requests_for_paths_outside_are_refused(client):
    for url in (
        "/answers/..%2F..%2Fetc",
        "/answers/%2E%2E/report",
        "/compare?a=..&b=..",
        "/experiments?config=configs/../secret.toml",
    ):
        r = client.get(url)
        assert r.status_code in (400, 404), url
        assert "secret" not in r.text or "outside" in r.text
    r = client.post("/experiments/start", data={"kind": "run", "config": "configs/../secret.toml"})
    assert r.status_code == 400 and "outside" in error_line(r.text)
    r = client.post(
        "/experiments/start",
        data={"kind": "run", "config": "configs/small.toml", "out": "../elsewhere"},
    )
    assert r.status_code == 400 and "outside the results folder" in error_line(r.text)


def test_a_config_naming_files_outside_the_roots_is_refused_before_reading_them(client):
    text = SMALL.replace(
        'armies = ["oda", "takeda", "uesugi"]', 'armies = ["oda", "../../secret.toml"]'
    )
    r = client.post("/experiments/check", data={"name": "sneaky.toml", "text": text})
    assert r.status_code == 400
    assert (
        "armies names \"../../secret.toml\", outside the results and configs folders"
        in error_line(r.text)
    )
    text = SMALL + 'extra_cards = "/etc/passwd"\n'
    r = client.post("/experiments/check", data={"name": "sneaky.toml", "text": text})
    assert r.status_code == 400 and "extra_cards names \"/etc/passwd\"" in error_line(r.text)


def test_uploads_are_size_limited_and_named_plainly(client, folders):
    results, _ = folders
    big = b"# " + b"x" * (MAX_UPLOAD + 10)
    r = client.post("/experiments/check", files={"file": ("big.toml", big, "text/plain")})
    assert r.status_code == 400
    assert (
        error_line(r.text) == f"big.toml is {len(big):,} bytes; uploads are at most "
        f"{MAX_UPLOAD:,} bytes"
    )
    huge = big * 2  # the request itself over the limit: refused before it is read
    r = client.post("/experiments/check", files={"file": ("huge.toml", huge, "text/plain")})
    assert r.status_code == 413 and "uploads are at most" in r.text
    r = client.post("/experiments/check", data={"name": "../evil.toml", "text": SMALL, "save": "1"})
    assert r.status_code == 400 and "file name" in error_line(r.text)
    assert not (results.parent / "evil.toml").exists()
    r = client.post(
        "/experiments/check", files={"file": ("bin.toml", b"\xff\xfe\x00", "text/plain")}
    )
    assert r.status_code == 400 and "not UTF-8" in error_line(r.text)


def test_other_sites_and_other_host_names_are_refused(client):
    r = client.post("/play", data={"game": "daitenka"}, headers={"origin": "http://evil.example"})
    assert r.status_code == 403
    r = client.get("/", headers={"host": "evil.example"})
    assert r.status_code == 421  # DNS rebinding: the page answers to its own name only


# ------------------------------------------------------------------------------ experiments


def test_a_bad_config_is_the_clis_one_line_error(client, folders):
    text = SMALL.replace("games = 40", "games = \"many\"")
    r = client.post("/experiments/check", data={"name": "bad.toml", "text": text})
    assert r.status_code == 400
    results, _ = folders
    with pytest.raises(LabError) as e:
        sim_config.from_dict(parse_toml(text, "x"), str(results / "configs" / "bad.toml"))
    assert error_line(r.text) == " ".join(str(e.value).split()).replace(
        str(results / "configs" / "bad.toml"), "uploads/bad.toml"
    )
    line = error_line(r.text)
    assert line.startswith("uploads/bad.toml: ") and "games" in line and "\n" not in line
    r = client.post("/experiments/check", data={"name": "bad.toml", "text": "games = [1,"})
    assert r.status_code == 400 and error_line(r.text).startswith(
        "uploads/bad.toml: not valid TOML"
    )
    r = client.post("/experiments/check", data={"name": "ok.toml", "text": SMALL, "save": "1"})
    assert r.status_code == 200 and "saved as" in r.text
    assert "uploads/ok.toml" in client.get("/experiments").text


def wait_job(
    client, job_id: str, until=("done", "failed", "interrupted"), timeout=600, when=None
) -> dict:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        j = client.get(f"/jobs/{job_id}.json").json()
        if j["state"] in until or (when is not None and when(j)):
            return j
        time.sleep(0.3)
    raise AssertionError(f"job {job_id} did not finish: {j}")


def start(client, **form) -> str:
    r = client.post("/experiments/start", data={"kind": "run", **form}, follow_redirects=False)
    assert r.status_code == 303, error_line(r.text)
    return r.headers["location"].rsplit("/", 1)[1]


def test_a_run_from_the_page_is_lab_run(client, folders, tmp_path):
    """The same config run by `lab run` and from the page — straight through, and stopped and
    resumed — gives identical records; the page shows progress while it runs."""
    results, configs = folders
    cli_out = tmp_path / "cli"
    r = CliRunner().invoke(cli.app, ["run", str(configs / "small.toml"), "--out", str(cli_out)])
    assert r.exit_code == 0, r.stderr
    job = start(client, config="configs/small.toml")
    seen = wait_job(client, job, when=lambda j: (j["done"] or 0) > 0)
    assert seen["total"] == 360
    done = wait_job(client, job)
    assert done["state"] == "done" and done["done"] == 360 and "played 360 games" in done["message"]
    assert_same_records(cli_out, results / "small")
    # stopped as soon as some chunks are written, then resumed: the same records again
    job = start(client, config="configs/small.toml", out="stopped")
    wait_job(client, job, when=lambda j: (j["done"] or 0) > 0)
    client.post(f"/jobs/{job}/stop")
    stopped = wait_job(client, job)
    assert stopped["state"] in ("interrupted", "done")
    if stopped["state"] == "interrupted":
        # on a loaded machine the stop may land after the last chunk, before the run ends
        assert "--resume" in stopped["message"] and stopped["done"] <= 360
        r = client.post(f"/jobs/{job}/resume", follow_redirects=False)
        assert r.status_code == 303
        assert wait_job(client, r.headers["location"].rsplit("/", 1)[1])["state"] == "done"
    assert_same_records(cli_out, results / "stopped")
    # the answers: its summary is lab run's, its report lab report's
    page = client.get("/answers/small").text
    assert "per army — win rate" in page and "織田 (oda)" in page
    r = client.post("/answers/small/report", follow_redirects=True)
    assert r.status_code == 200 and "balance report" in r.text and "data:image/png" in r.text
    r = client.get("/compare?a=small&b=stopped")
    assert r.status_code == 200 and "no paired change" in r.text
    # lab value launched from the experiment's page: its table shows there
    r = client.post(
        "/experiments/start",
        data={
            "kind": "value",
            "config": "configs/small.toml",
            "cards": "赤備え",
            "games": "10",
            "out": "small/value",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, error_line(r.text)
    done = wait_job(client, r.headers["location"].rsplit("/", 1)[1])
    assert done["state"] == "done", done["message"]
    page = client.get("/answers/small").text
    assert "card value — second_edition" in page and "赤備え" in page
    assert (results / "small" / "value" / "value.parquet").is_file()
    # lab balance launched from the page: its proposals and [[patch]] TOML show there
    r = client.post(
        "/experiments/start",
        data={
            "kind": "balance",
            "config": "configs/small.toml",
            "cards": "赤備え,武田信玄",
            "budget_games": "3000",
            "minutes": "",
            "confirm_games": "100",
            "out": "small/balance",
            "tiers": "heuristic,random",
            "strong_games": "20",
        },  # random: a cheap second tier
        follow_redirects=False,
    )
    assert r.status_code == 303, error_line(r.text)
    done = wait_job(client, r.headers["location"].rsplit("/", 1)[1])
    assert done["state"] == "done", done["message"]
    from lab.records.balance import read_result
    from lab.report import balance

    result = read_result(results / "small" / "balance")
    page = client.get("/answers/small").text
    import html

    assert balance.headline(result) in html.unescape(page)
    shown = [html.unescape(x) for x in re.findall(r"<pre>(.*?)</pre>", page, re.S)]
    for p in result["proposals"][:5]:
        assert p["toml"] in shown  # pasteable as it is, with a copy button beside it
    assert result["proposals"] and "[[patch]]" in page and "data-copy" in page
    assert result["tiers"] == ["heuristic-vs-heuristic", "random-vs-random"]


def test_a_failed_run_is_one_line_and_the_page_goes_on(client, folders):
    results, _ = folders
    from lab.sim import lock

    (results / "busy").mkdir(parents=True)
    with lock.hold(results / "busy"):
        r = client.post(
            "/experiments/start",
            data={"kind": "run", "config": "configs/small.toml", "out": "busy"},
        )
    assert r.status_code == 400 and "is being written by another run" in error_line(r.text)
    # a folder holding another experiment's records: refused by the runner in the job
    job = start(client, config="configs/other.toml", out="taken", games="2")
    assert wait_job(client, job)["state"] == "done"
    job = start(client, config="configs/small.toml", out="taken", games="2")
    failed = wait_job(client, job)
    assert failed["state"] == "failed"
    assert (
        failed["message"].startswith("--out results/taken holds the records of another experiment")
        and "\n" not in failed["message"]
    )
    assert client.get("/").status_code == 200 and client.get("/answers").status_code == 200


def test_lab_serve_command(monkeypatch, tmp_path):
    """`lab serve` binds 127.0.0.1 by default; another --host is served with a warning; bad
    folders are one line."""
    import uvicorn

    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append(kw))
    configs = tmp_path / "c"
    configs.mkdir()
    r = CliRunner().invoke(
        cli.app, ["serve", "--results", str(tmp_path / "r"), "--configs", str(configs)]
    )
    assert r.exit_code == 0, r.stderr
    assert calls[-1]["host"] == "127.0.0.1" and calls[-1]["port"] == 8765
    assert "warning" not in r.stderr and "http://127.0.0.1:8765/" in r.stderr
    r = CliRunner().invoke(
        cli.app,
        [
            "serve",
            "--host",
            "0.0.0.0",
            "--port",
            "9000",
            "--results",
            str(tmp_path / "r"),
            "--configs",
            str(configs),
        ],
    )
    assert r.exit_code == 0 and calls[-1]["host"] == "0.0.0.0"
    assert "warning: --host 0.0.0.0: anyone who can reach this machine" in " ".join(
        r.stderr.split()
    )
    r = CliRunner().invoke(
        cli.app,
        ["serve", "--port", "0", "--results", str(tmp_path / "r"), "--configs", str(configs)],
    )
    assert r.exit_code == 0 and calls[-1]["port"] > 0
    assert f"http://127.0.0.1:{calls[-1]['port']}/" in r.stderr
    r = CliRunner().invoke(cli.app, ["serve", "--configs", str(tmp_path / "none")])
    assert r.exit_code == 2 and "is not a folder" in r.stderr


def test_two_variants_of_one_folder_side_by_side_with_the_paired_change(client, folders):
    """Answers: two variants of one run compared per army and tier on the same deals — the
    change and its interval are lab.stats.compare_variants' own (causal)."""
    from _support.sim_cases import SMALL as TWO_VARIANTS

    from lab import stats
    from lab.report.document import points
    from lab.sim.runner import run

    results, configs = folders
    exp = sim_config.from_dict(parse_toml(TWO_VARIANTS, "x"), str(configs / "two.toml"))
    run(exp, results / "two", jobs=1)
    base, other = [v.id for v in exp.variants]
    r = client.get("/compare", params={"a": "two", "va": base, "b": "two", "vb": other})
    assert r.status_code == 200, error_line(r.text)
    assert "paired change (points)" in r.text
    assert "on the same deals (causal)" in r.text
    want = stats.compare_variants(stats.load(results / "two"), base, other)
    row = want[(want["kind"] == "army") & (want["army"] == "takeda")].iloc[0]
    cell = (
        f"{points(row['change'])} [{points(row['change_lo'])}, "
        f"{points(row['change_hi'])}] pairs={int(row['pairs']):,}"
    )
    assert cell in r.text
    r = client.get(
        "/compare", params={"a": "two", "va": "no_such_variant", "b": "two", "vb": other}
    )
    assert r.status_code == 400 and "variant \"no_such_variant\" is not in two" in error_line(
        r.text
    )


def test_the_pages_balance_form_starts_from_the_commands_defaults(client, folders):
    """A designer who starts lab balance from the page with its form untouched gets the search
    `lab balance CONFIG` runs: every field the form fills in holds the option's default."""
    results, configs = folders
    r = CliRunner().invoke(
        cli.app, ["run", str(configs / "small.toml"), "--out", str(results / "small")]
    )
    assert r.exit_code == 0, r.stderr
    page = client.get("/answers/small").text
    form = page[page.index('name="kind" value="balance"') :]
    form = form[: form.index("</form>")]
    shown = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form))
    import typer.main

    options = {p.name: p for p in typer.main.get_command(cli.app).commands["balance"].params}
    for field in ("band", "max_edits", "confirm_games", "strong_games"):
        assert float(shown[field]) == float(options[field].default), field
    minutes = re.search(r"default (\d+(?:\.\d+)?) unless", options["minutes"].help)
    assert float(shown["minutes"]) == float(minutes.group(1))
    # the deck-list edits' box is ticked exactly when `lab balance` adds them unasked
    box = re.search(r'<input type="checkbox" name="deck_lists"([^>]*)>', form)
    assert box and ("checked" in box.group(1)) == bool(options["deck_lists"].default)
    box = re.search(r'<input type="checkbox" name="no_abilities"([^>]*)>', form)
    assert box and ("checked" in box.group(1)) == (not options["abilities"].default)
    box = re.search(r'<input type="checkbox" name="no_centre"([^>]*)>', form)
    assert box and ("checked" in box.group(1)) == (not options["centre"].default)


def test_the_balance_form_asks_for_deck_list_edits_and_numbers_only(client, folders, monkeypatch):
    """The page's deck-list, numbers-only and no-centring boxes reach the search as `lab balance
    --deck-lists`, `--no-abilities` and `--no-centre` do: the job's spec carries them, the child
    plans with them (and with the defaults when unticked)."""
    from lab.design import balance
    from lab.serve import child

    results, configs = folders
    spec = {"config": str(configs / "small.toml"), "out": str(results / "b")}
    seen = []

    class Planned(Exception):
        pass

    def spy(exp, **kw):
        seen.append((kw["deck_lists"], kw["abilities"], kw["centre"]))
        raise Planned

    monkeypatch.setattr(balance, "plan", spy)
    for ticked in ((True, False, False), (False, True, True)):
        with pytest.raises(Planned):
            child._balance(
                {**spec, "deck_lists": ticked[0], "abilities": ticked[1], "centre": ticked[2]},
                lambda **kw: None,
            )
    with pytest.raises(Planned):
        child._balance(spec, lambda **kw: None)  # a spec from before the boxes: the defaults
    assert seen == [(True, False, False), (False, True, True), (False, True, True)]
    started = []

    def start(kind, config, ref, out, **options):
        started.append((kind, options["deck_lists"], options["abilities"], options["centre"]))
        return SimpleNamespace(id="spied")

    monkeypatch.setattr(client.app.state.lab.jobs, "start", start)
    form = {"kind": "balance", "config": "configs/small.toml", "budget_games": "100"}
    for extra in ({"deck_lists": "on", "no_abilities": "on", "no_centre": "on"}, {}):
        r = client.post("/experiments/start", data={**form, **extra}, follow_redirects=False)
        assert r.status_code == 303, error_line(r.text)
    assert started == [("balance", True, False, False), ("balance", False, True, True)]
