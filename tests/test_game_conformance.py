"""The conformance suite every registered game passes (lab.games.protocol; issue 28 item 2):
its entry, game object and experiment implement the typed protocol with every member written
out; a game sets up from seed words for every preset, lists distinct legal actions, steps by
action, text or index, ends with a result, shows each seat nothing it cannot see and replays
identically from its seed; a small experiment runs to records of the declared schemas — the
same for any chunk size — and to a summary and a report.

Parametrised over ``lab.games.GAMES``: a new game is checked by registering it, with nothing
added here (docs/games.md)."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from lab import games
from lab.errors import LabError
from lab.games.protocol import CardDesign, Experiment, GameEntry, GameState, members

NAMES = list(games.GAMES)
MAX_DECISIONS = 5000  # far beyond any game of either: a longer one is a bug


def _defined_on_class(obj, name: str) -> bool:
    return any(name in vars(k) for k in type(obj).__mro__ if k is not object)


def _random_play(g, seed: int, limit: int = MAX_DECISIONS):
    """Play ``g`` to its end with uniformly random legal actions; each decision's (seat to
    move, legal texts, observations of every seat)."""
    rng = np.random.default_rng(seed)
    trail = []
    while not g.is_over:
        assert len(trail) < limit, f"still running after {limit} decisions"
        legal = g.legal_actions()
        trail.append((g.to_move, [a.text for a in legal]))
        g.step(legal[int(rng.integers(len(legal)))])
    return trail


@pytest.fixture(params=NAMES)
def entry(request) -> GameEntry:
    return games.get(request.param)


# ------------------------------------------------------------------ the protocol itself
def test_registered_entry_implements_the_protocol_explicitly(entry):
    assert isinstance(entry, GameEntry)
    missing = [m for m in members(GameEntry) if not _defined_on_class(entry, m)]
    assert not missing, f"{entry.name}: not written out on its entry class: {missing}"
    assert "__getattr__" not in vars(type(entry))
    assert games.GAMES.display(entry.name) == entry.display
    assert games.get(entry.name) is entry
    assert entry.DEFAULT_PRESET in entry.PRESETS and len(entry.RECORD_KINDS) >= 1


def test_an_unknown_preset_is_one_line(entry):
    with pytest.raises(LabError) as e:
        entry.rules("no_such_preset")
    assert "\n" not in str(e.value) and "no_such_preset" in str(e.value)


# ------------------------------------------------------------------ one game
@pytest.mark.parametrize("seed", [1, 2])
def test_every_preset_sets_up_a_running_game(entry, seed):
    for preset in entry.PRESETS:
        rules = entry.rules(preset)
        seats = entry.seats(rules)
        assert len(seats) >= 2 and len(set(seats)) == len(seats), preset
        g = entry.new_game(rules, seed)
        assert isinstance(g, GameState)
        missing = [m for m in members(GameState) if not _defined_on_class(g, m)]
        assert not missing, f"{entry.name} game object lacks {missing}"
        assert not g.is_over and g.winner is None and g.result() is None
        legal = g.legal_actions()
        assert legal and g.to_move in seats, preset
        for s in seats:  # plain data, as a page or a notebook would show it
            json.dumps(g.observation(s))


def test_legal_actions_are_distinct_and_step_takes_action_text_or_index(entry):
    """Three copies of a game stepped with the same choices — by the action, by its text, by
    its index — stay the same game to the end."""
    trio = [entry.new_game(entry.rules(), 7) for _ in range(3)]
    seats = entry.seats(trio[0].rules)
    rng = np.random.default_rng(7)
    k = 0
    while not trio[0].is_over:
        legal = [g.legal_actions() for g in trio]
        texts = [a.text for a in legal[0]]
        assert len(set(texts)) == len(texts), f"decision {k}: repeated actions {texts}"
        assert all([a.text for a in other] == texts for other in legal[1:]), k
        assert all(g.observation(s) == trio[0].observation(s) for g in trio[1:] for s in seats)
        i = int(rng.integers(len(texts)))
        trio[0].step(legal[0][i])
        trio[1].step(texts[i])
        trio[2].step(i)
        k += 1
    assert k > 10 and all(g.is_over and g.result() == trio[0].result() for g in trio)


def test_a_step_that_is_not_legal_is_one_line_and_changes_nothing(entry):
    g = entry.new_game(entry.rules(), 3)
    legal = [a.text for a in g.legal_actions()]
    seen = {s: g.observation(s) for s in entry.seats(g.rules)}
    for bad in ("not a step at all", 10_000):
        with pytest.raises((LabError, IndexError)) as e:
            g.step(bad)
        if isinstance(e.value, LabError):
            assert "\n" not in str(e.value)
    assert [a.text for a in g.legal_actions()] == legal
    assert {s: g.observation(s) for s in entry.seats(g.rules)} == seen


@pytest.mark.parametrize("seed", [4, 5])
def test_a_game_ends_with_a_result(entry, seed):
    for preset in entry.PRESETS:
        rules = entry.rules(preset)
        g = entry.new_game(rules, seed)
        trail = _random_play(g, seed)
        assert trail and g.is_over and g.legal_actions() == []
        r = g.result()
        seats = entry.seats(rules)
        assert r is not None and r["winner"] == g.winner
        assert g.winner in (*seats, "draw"), (preset, g.winner)
        assert isinstance(g.summary(), str) and g.summary()
        json.dumps(r, default=str)
        assert all(isinstance(line, str) for line in g.log_lines())
        with pytest.raises(LabError):
            g.step(0)


def test_the_same_seed_plays_the_same_game_and_another_seed_another(entry):
    def run(seed):
        g = entry.new_game(entry.rules(), seed)
        rng = np.random.default_rng(11)
        frames = []
        while not g.is_over:
            legal = g.legal_actions()
            frames.append(
                (
                    g.to_move,
                    [a.text for a in legal],
                    [g.observation(s) for s in entry.seats(g.rules)],
                )
            )
            g.step(int(rng.integers(len(legal))))
        return frames, g.result()

    a, b, c = run(21), run(21), run(22)
    assert a == b
    assert a != c


def test_observations_hide_what_a_seat_cannot_see(entry):
    """At every decision of random games, re-dealing what a seat cannot see leaves that seat's
    observation unchanged; and the re-deal is no no-op — played on the same way as the game
    itself, the re-dealt copy parts from it (so what it moved matters)."""
    rng = np.random.default_rng(5)
    parted = 0
    for seed in (1, 2):
        g = entry.new_game(entry.rules(), seed)
        seats = entry.seats(g.rules)
        steps: list[str] = []
        while not g.is_over:
            legal = g.legal_actions()
            for s in seats:
                h = g.redeal_hidden(s, rng)
                assert h.observation(s) == g.observation(s), (seed, len(steps), s)
            if len(steps) % 25 == 0:
                twin = entry.new_game(entry.rules(), seed)
                for text in steps:
                    twin.step(text)
                parted += _parts(g.redeal_hidden(seats[0], rng), twin, seats)
            a = legal[int(rng.integers(len(legal)))]
            steps.append(a.text)
            g.step(a)
    assert parted, "no re-deal ever changed how the game went on: the check checked nothing"


def _parts(a, b, seats, horizon: int = 60) -> bool:
    """True when ``a`` and ``b``, both stepped with their first legal action, differ within
    ``horizon`` decisions (in what any seat sees, what is legal, or the result)."""
    for _ in range(horizon):
        if a.is_over or b.is_over:
            return a.is_over != b.is_over or a.result() != b.result()
        la, lb = a.legal_actions(), b.legal_actions()
        if [x.text for x in la] != [x.text for x in lb]:
            return True
        if any(a.observation(s) != b.observation(s) for s in seats):
            return True
        a.step(0)
        b.step(0)
    return False


# ------------------------------------------------------------------ an experiment
@pytest.fixture(scope="module", params=NAMES)
def smoke_run(request, tmp_path_factory):
    """(entry, experiment, results folder) of the game's smoke experiment, run on one worker."""
    from lab.sim import runner
    from lab.sim.config import from_dict

    entry = games.get(request.param)
    exp = from_dict(entry.smoke_config(games=4), f"{entry.name}-smoke.toml")
    out = tmp_path_factory.mktemp(entry.name) / "run"
    result = runner.run(exp, out, jobs=1)
    assert result.played == exp.total_games
    return entry, exp, out


def test_the_smoke_config_is_an_experiment_of_the_game(smoke_run):
    entry, exp, _ = smoke_run
    assert isinstance(exp, Experiment) and exp.game == entry.name
    missing = [m for m in members(Experiment) if not hasattr(exp, m)]
    assert not missing, missing
    assert len(exp.variants) >= 2 and exp.n_cells >= len(exp.variants)
    assert exp.total_games >= exp.n_cells * exp.games
    assert json.loads(json.dumps(exp.resolved()))  # manifest.json holds it as it is
    again = entry.load_experiment(entry.smoke_config(games=4), "again.toml")
    assert again.fingerprint() == exp.fingerprint()
    other = entry.load_experiment(entry.smoke_config(games=4) | {"seed": 4}, "other.toml")
    assert other.fingerprint() != exp.fingerprint()
    assert entry.describe(exp).startswith(exp.name) and f"{exp.total_games:,}" in entry.describe(
        exp
    )


def test_card_design_is_offered_or_refused_in_one_line(smoke_run):
    """lab value, lab swap and lab balance reach a game's cards only through card_design(): a
    game with EDITS_CARDS offers every member of CardDesign on its own experiments; any other
    refuses in one line."""
    entry, exp, _ = smoke_run
    if not entry.EDITS_CARDS:
        with pytest.raises(LabError) as e:
            entry.card_design()
        assert "\n" not in str(e.value) and entry.display in str(e.value)
        return
    design = entry.card_design()
    assert isinstance(design, CardDesign)
    assert not [m for m in members(CardDesign) if not _defined_on_class(design, m)]
    assert exp.patches == (design.BASE_PATCH,)
    armies = {a.key for a in exp.armies}
    arms = design.value_arms(exp, None)
    assert set(arms) == armies and any(arms.values())
    moves = design.edit_catalogue(exp)
    assert moves and all(m.armies <= armies for m in moves)
    first = design.patch("first", [moves[0].edit])
    played = design.with_patches(exp, (design.BASE_PATCH, first))
    assert played.fingerprint() != exp.fingerprint() and len(played.patches) == 2
    assert "[[patch]]" in design.patch_toml(moves[:1], "first", "", exp)


def test_records_have_the_declared_schemas_and_one_row_per_game(smoke_run):
    from lab.records import read_table

    entry, exp, out = smoke_run
    for kind in entry.RECORD_KINDS:
        files = sorted((out / kind).glob("*.parquet"))
        assert files, kind
        want = entry.schema(kind)
        for f in files:
            assert pq.read_schema(f).remove_metadata().equals(want.remove_metadata()), (kind, f)
    first = read_table(out, entry.RECORD_KINDS[0]).to_pandas()
    assert len(first) == exp.total_games and first["game_id"].is_unique
    names = {f.name: str(f.type) for k in entry.RECORD_KINDS for f in entry.schema(k)}
    for name, arrow_type, _ in entry.record_columns(exp.variants[0]):
        assert names.get(name) == arrow_type, name


def test_records_are_the_same_for_any_chunk_size(smoke_run, tmp_path):
    from lab.sim import runner
    from lab.sim.config import from_dict
    from lab.records import read_table

    entry, exp, out = smoke_run
    other = from_dict(entry.smoke_config(games=4) | {"chunk_size": 3}, "chunks.toml")
    runner.run(other, tmp_path / "b", jobs=1)
    for kind in entry.RECORD_KINDS:
        a, b = (read_table(d, kind).to_pandas().astype(str) for d in (out, tmp_path / "b"))
        a, b = (t.sort_values(list(t.columns), ignore_index=True) for t in (a, b))
        assert len(a) and a.equals(b), kind


def test_a_run_has_a_summary_and_a_report(smoke_run):
    entry, exp, out = smoke_run
    tables = entry.summary_tables(out, exp)
    assert tables and all(t.row_count > 0 for t in tables)
    page = entry.build_report(out, fmt="md")
    text = page.read_text(encoding="utf-8")
    assert text.startswith("#") and "\n## " in text
    for v in exp.variants:
        assert v.id in text, v.id


# ------------------------------------------------------------------ the page (lab serve)
PAGE_TEMPLATES = ("form.html", "after_form.html", "board.html", "result.html")


def test_the_page_offers_every_toggle_of_every_preset(entry):
    for preset in entry.PRESETS:
        fields = entry.page_rule_fields(preset)
        assert {f["key"] for f in fields} == set(entry.rules(preset).as_dict()) - {"id"}, preset
        for f in fields:
            assert f["kind"] in ("choice", "range", "text") and f["value"] == f["preset"]
            assert f["kind"] == "text" or f["allowed"], f["key"]
    assert {t: (entry.PAGE_TEMPLATES / t).is_file() for t in PAGE_TEMPLATES} == dict.fromkeys(
        PAGE_TEMPLATES, True
    )


def test_a_page_match_plays_to_its_end_through_the_protocol(entry, tmp_path):
    from lab.games.protocol import PageMatch
    from lab.serve.play import Setup

    setup = Setup({"game": entry.name, "seed": "3", "bot": "random"}, tmp_path / "decks")
    match = entry.page_match(setup, tmp_path / "replays")
    missing = [m for m in members(PageMatch) if not hasattr(match, m)]
    assert not missing, f"{entry.name}'s page match lacks {missing}"
    with pytest.raises(LabError):
        match.replay_text()  # the seed decides what is to come: not before the end
    clicks = 0
    while not match.over:
        view = match.view()
        json.dumps(view)  # the page's JSON is built from it alone
        assert view["game"] == entry.name and not view["over"] and view["result"] is None
        assert [a["i"] for a in view["legal"]] == list(range(len(view["legal"]))) > []
        assert view["seed"] is not None  # a seed the form gave is shown
        step = match.steps
        match.act(0)
        assert match.steps > step
        clicks += 1
        assert clicks < MAX_DECISIONS
    with pytest.raises(LabError):
        match.act(0)
    view = match.view()
    assert view["over"] and view["result"]["winner"] and view["legal"] == []
    name, text = match.replay_text()
    assert name and text
    try:
        match.scenario_text(tmp_path / "scenarios")
    except LabError as e:
        assert "\n" not in str(e)  # a game without a scenario writer says so in one line
