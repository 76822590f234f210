"""Issue 5: a custom Python bot (the documented protocol) plays whole games against compiled
bots through the Python API, and sees only its seat's observation."""

from lab.games.daitenka.bots.custom import play
from lab.games.daitenka.engine.api import Game


class BiggestSet:
    def __init__(self):
        self.seen_opponent_hand = False
        self.decisions = 0

    def act(self, observation, legal_actions):
        me = observation["player"]
        opp = "B" if me == "A" else "A"
        self.seen_opponent_hand |= "hand" in observation["players"][opp]
        self.decisions += 1

        def size(a):
            if " lead " in a.text or " answer " in a.text:
                return len(a.text.split(" ", 2)[2].split(" ")[0].split(","))
            return 0

        best = max(legal_actions, key=size)
        return best if size(best) else legal_actions[0]


def test_python_bot_plays_full_games_against_compiled_bots():
    results = []
    for seed in range(6):
        bot = BiggestSet()
        g = play(Game("second_edition", "oda", "seigun", seed=seed), bot, "heuristic")
        assert g.is_over and g.winner in ("A", "B", "draw")
        assert bot.decisions > 0 and not bot.seen_opponent_hand
        results.append(g.winner)
    # the heuristic should beat a bot that only ever plays its biggest set most of the time
    assert results.count("B") >= 3


def test_python_bot_returning_text_or_index_works():
    class FirstText:
        def act(self, observation, legal_actions):
            return legal_actions[-1].text

    class FirstIndex:
        def act(self, observation, legal_actions):
            return 0

    g = play(Game("sekigahara_trial", "tougun", "seigun", seed=2), FirstText(), FirstIndex())
    assert g.is_over and g.decisions > 0


def test_compiled_bot_through_the_api_matches_the_batch_loop():
    """The same seed and bots give the same game through play() and through lab.games.daitenka.bots.match."""
    from lab.games.daitenka.bots.match import finish

    a = play(Game("second_edition", "mouri", "houjou", seed=7), "heuristic", "random")
    b = finish(Game("second_edition", "mouri", "houjou", seed=7), "heuristic", "random")
    assert (a.s == b.s).all()
