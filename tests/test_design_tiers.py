"""The tier a design command measures at: configs/default.toml plays the tuned heuristic (the
tier the README advises for balance work), tiers are picked by their short names, and a command
measuring at a weaker tier (the plain heuristic, random) says in one line that its conclusions
may not hold for stronger play."""

from __future__ import annotations

from lab.games.daitenka.bots.match import parse_bot
from lab.design import value
from lab.design.tiers import names, weak, weak_tier_note
from lab.games.daitenka.experiment import Tier
from lab.sim.config import load_experiment


def tier(a, b=None):
    return Tier(parse_bot(a), parse_bot(b or a))


def test_the_default_experiment_plays_the_tuned_tier():
    exp = load_experiment("configs/default.toml")
    [t] = exp.tiers
    assert t.a == t.b == parse_bot("tuned") and t.a.short == "tuned"
    assert weak_tier_note(exp.tiers) is None
    # lab value configs/default.toml --tier tuned picks it by its short name
    assert value._tiers(exp, ["tuned"]) == (t,)


def test_weak_tiers_get_one_line_pointing_to_the_readme():
    assert weak(parse_bot("heuristic")) and weak(parse_bot("random"))
    assert weak(parse_bot({"kind": "heuristic", "persona": "balanced"}))
    assert not weak(parse_bot("tuned"))
    assert not weak(parse_bot({"kind": "search", "simulations": 400}))
    assert not weak(parse_bot({"kind": "heuristic", "wall_gain": 100}))  # not the plain one
    note = weak_tier_note([tier("heuristic")])
    assert "\n" not in note
    assert note.startswith(
        "heuristic-vs-heuristic: conclusions at this tier may not hold for stronger play"
    )
    assert "Which bot tier for balance work" in note and "tuned" in note
    both = weak_tier_note([tier("tuned"), tier("heuristic", "random"), tier("random")])
    assert both.startswith("heuristic-vs-random, random-vs-random: conclusions at these tiers")
    assert weak_tier_note([tier("tuned"), tier({"kind": "search", "simulations": 50})]) is None


def test_a_tier_is_named_by_its_label_or_its_bot():
    assert names(tier("tuned")) == {
        "heuristic(persona=tuned)-vs-heuristic(persona=tuned)",
        "heuristic(persona=tuned)",
        "tuned",
    }
    assert names(tier({"kind": "search", "simulations": 400})) >= {"search(400)"}
    assert names(tier("heuristic", "random")) == {"heuristic-vs-random"}
