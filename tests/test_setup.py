"""Set-up (rules.md R3): shuffle, walls without castles, legacy logistics, opening hands,
三好長慶's extra card, the legacy mulligan, the first player, seeding and card conservation.

Every test deals real games through ``lab.games.daitenka.engine.api.Game`` and reads the zones right after
set-up (before the first leader turn's automatic draw, which only happens when the first
``legal_actions()`` of a leader turn is asked for).
"""

from __future__ import annotations

from collections import Counter

import pytest

from lab.games.daitenka.cards.pool import ARMIES, load_army, load_deck, load_pool
from lab.games.daitenka.cards.vocab import Kind
from lab.games.daitenka.engine.api import Game
from lab.games.daitenka.engine.layout import (
    G_FIRST,
    G_PHASE,
    NL,
    PH_LEADER_START,
    PH_MULLIGAN,
    ST_BASE,
    ST_OPENING,
)
from lab.games.daitenka.rules import PRESETS, RuleSet

SEATS = ("A", "B")
DECK_SIZE = 30
CASTLES4 = ("姫路城", "岐阜城", "墨俣一夜城", "小田原城")

# Test decks (30 cards each, legal under R2).
DECKS = {
    # four castles (the R2 maximum) among plain units of strength ≥4
    "castles": {
        **{c: 1 for c in CASTLES4},
        "織田信長": 1,
        "足軽4": 5,
        "足軽5": 5,
        "足軽6": 5,
        "足軽7": 5,
        "足軽8": 5,
    },
    # no unit of strength ≤3 at all: every opening hand may be mulliganed
    "high": {"足軽4": 5, "足軽5": 5, "足軽6": 5, "足軽7": 5, "足軽8": 5, "足軽9": 4, "織田信長": 1},
    # 30 distinct card types, none of strength ≤3: shows which cards a mulligan draws
    "distinct": {
        **{f"足軽{s}": 1 for s in range(4, 11)},
        **{
            n: 1
            for n in (
                "鉄砲足軽",
                "村上水軍",
                "一番槍",
                "九鬼水軍",
                "破城槌",
                "赤備え",
                "大筒",
                "朝倉義景",
                "六角義賢",
                "木下藤吉郎",
                "斎藤龍興",
                "北畠具教",
                "黒田長政",
                "松永久秀",
                "藤堂高虎",
                "里見義堯",
                "尼子晴久",
                "前田利家",
                "最上義光",
                "小早川秀秋",
                "今川義元",
                "毛利秀元",
                "織田信長",
            )
        },
    },
    # every unit of strength ≤3: no opening hand may be mulliganed (unless all ∞ — impossible)
    "low": {"足軽1": 10, "足軽2": 10, "足軽3": 9, "織田信長": 1},
    # high units plus 三好長慶 (畿内の覇者: +1 opening hand, R12)
    "miyoshi_high": {
        "三好長慶": 1,
        "足軽4": 5,
        "足軽5": 5,
        "足軽6": 5,
        "足軽7": 5,
        "足軽8": 5,
        "足軽9": 3,
        "織田信長": 1,
    },
}


@pytest.fixture(scope="module")
def pool():
    return load_pool()


@pytest.fixture(scope="module")
def decks(pool, tmp_path_factory):
    d = tmp_path_factory.mktemp("setup_decks")
    out = {}
    for key, cards in DECKS.items():
        path = d / f"{key}.toml"
        lines = [f'name = "{key}"', "", "[cards]"] + [f'"{k}" = {v}' for k, v in cards.items()]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out[key] = load_deck(path, pool)
        assert out[key].size == DECK_SIZE
    return out


def rules(preset="second_edition", **over) -> RuleSet:
    return RuleSet.preset(preset).with_overrides(over)


def deal(pool, r, a, b, seed) -> Game:
    return Game(r, a, b, seed=seed, pool=pool)


def snapshot(g: Game) -> dict:
    """Everything the deal decides, per seat (full information)."""
    return {
        seat: {
            "deck": g.zone(seat, "deck"),
            "walls": g.zone(seat, "walls"),
            "hand": g.zone(seat, "hand"),
            "logistics": g.zone(seat, "logistics"),
            "castle": g.zone(seat, "castle"),
        }
        for seat in SEATS
    }


def all_cards(g: Game, seat: str) -> Counter:
    """Every card a player holds anywhere (R1 conservation)."""
    out = (
        Counter(g.zone(seat, "deck"))
        + Counter(g.zone(seat, "walls"))
        + Counter(g.zone(seat, "logistics"))
    )
    for z in ("hand", "camp_up", "camp_down", "graveyard", "field"):
        out += Counter(g.zone(seat, z))
    if g.zone(seat, "castle"):
        out[g.zone(seat, "castle")] += 1
    return out


def deck_counter(deck) -> Counter:
    return Counter({c.name: n for c, n in deck.entries})


def has_low_unit(pool, hand: dict) -> bool:
    return any(pool.get(n).is_unit and pool.get(n).strength <= 3 for n in hand)


def mulligan_texts(g: Game) -> set[str]:
    return {a.text for a in g.legal_actions() if a.text.split()[1] in ("keep", "mulligan")}


# ------------------------------------------------------------------ R3.1 castles never in walls


@pytest.mark.parametrize("preset", ["second_edition", "sekigahara_trial", "legacy_testlab"])
def test_r3_1_castles_never_dealt_into_walls_or_logistics(pool, decks, preset):
    """R3.1 / R3.2 / R2: castle cards met while dealing walls or logistics are set aside; none is
    ever a wall or a logistics card, and all four end in the deck or the opening hand."""
    r = rules(preset, mulligan=False)
    met_in_hand = 0
    for seed in range(150):
        g = deal(pool, r, decks["castles"], decks["castles"], seed)
        for seat in SEATS:
            walls, logi = g.zone(seat, "walls"), g.zone(seat, "logistics")
            assert not set(walls) & set(CASTLES4), (seed, seat, walls)
            assert not set(logi) & set(CASTLES4), (seed, seat, logi)
            assert len(walls) == r.walls
            hand, deck = g.zone(seat, "hand"), g.zone(seat, "deck")
            for c in CASTLES4:
                assert hand.get(c, 0) + deck.count(c) == 1, (seed, seat, c)
            met_in_hand += sum(hand.get(c, 0) for c in CASTLES4)
            assert g.zone(seat, "castle") == ""
    assert met_in_hand > 0  # castles do reach opening hands


def test_r3_1_set_aside_castles_are_shuffled_back_not_stacked(pool, decks):
    """R3.1: the set-aside castles are shuffled back into the deck once dealing is done, so after
    the deal each castle is uniformly placed among the 17 undealt cards (walls 10 + logistics 3):
    every deck position holds a castle in some game, and about 5/17 of the castles are in the
    opening hand — not all on top (drawn at once) nor all at the bottom."""
    r = rules("legacy_testlab", mulligan=False)
    in_hand = total = 0
    pos_hits = Counter()
    games = 300
    for seed in range(games):
        g = deal(pool, r, decks["castles"], decks["high"], seed)
        hand, deck = g.zone("A", "hand"), g.zone("A", "deck")
        assert len(deck) == DECK_SIZE - 10 - 3 - 5
        in_hand += sum(hand.get(c, 0) for c in CASTLES4)
        for k, name in enumerate(deck):
            if name in CASTLES4:
                pos_hits[k] += 1
        total += len(CASTLES4)
    assert set(pos_hits) == set(range(12)), pos_hits  # top … bottom of the deck all reached
    frac = in_hand / total
    assert 0.22 < frac < 0.37, frac  # 5/17 ≈ 0.294
    # the bottom card is a castle about 4/17 of the time, not always and not never
    assert 0.12 < pos_hits[11] / games < 0.36, pos_hits[11]


def test_r3_deal_order_walls_then_logistics_then_hand(pool, decks):
    """R3.1–3.3 dealing order, read off one shuffle (a castle-free deck, so the shuffle does not
    depend on the toggles): the first card dealt is the 天守 (listed first, broken last), the
    walls take the next cards in order, then the 3 logistics cards, then the hand."""
    d = decks["distinct"]
    for seed in range(10):
        ref = deal(pool, rules(walls=1, initial_hand=0), d, d, seed)
        order = {s: ref.zone(s, "walls") + ref.zone(s, "deck") for s in SEATS}  # top first
        g = deal(pool, rules(walls=7, initial_hand=5, logistics=True), d, d, seed)
        for seat in SEATS:
            o = order[seat]
            assert len(o) == DECK_SIZE
            assert g.zone(seat, "walls") == o[:7]  # o[0], the first dealt, is the 天守
            assert g.zone(seat, "logistics") == o[7:10]
            assert g.zone(seat, "hand") == dict(Counter(o[10:15]))
            assert g.zone(seat, "deck") == o[15:]


# ------------------------------------------------------------------ wall count and hand size


@pytest.mark.parametrize(
    "preset,walls", [("second_edition", 7), ("sekigahara_trial", 6), ("legacy_testlab", 10)]
)
@pytest.mark.parametrize("army", ["oda", "saika", "houjou", "castles"])
def test_r3_1_wall_count_equals_walls(pool, decks, preset, walls, army):
    """R3.1 / R14: each player is dealt exactly `walls` walls (7 / 6 / 10 by preset)."""
    d = decks[army] if army in decks else load_army(army, pool)
    for seed in range(12):
        g = deal(pool, RuleSet.preset(preset), d, d, seed)
        for seat in SEATS:
            assert len(g.zone(seat, "walls")) == walls
            assert g.zone(seat, "wall_count") == walls


@pytest.mark.parametrize("walls", [1, 4, 12])
def test_r3_1_wall_override(pool, walls):
    """R3.1: the `walls` toggle (not only the presets' values) sets the deal."""
    g = deal(pool, rules(walls=walls), "oda", "uesugi", 3)
    assert [g.zone(s, "wall_count") for s in SEATS] == [walls, walls]


@pytest.mark.parametrize("n", [0, 3, 5, 7])
def test_r3_3_hand_size_equals_initial_hand(pool, n):
    """R3.3: the opening hand has `initial_hand` cards (default 5; overrides 3, 7, 0)."""
    r = rules(initial_hand=n) if n != 5 else RuleSet()
    for seed in range(10):
        g = deal(pool, r, "oda", "takeda", seed)
        for seat in SEATS:
            assert g.zone(seat, "hand_count") == n
            assert sum(g.zone(seat, "hand").values()) == n
            assert len(g.zone(seat, "deck")) == DECK_SIZE - 7 - n


@pytest.mark.parametrize("n", [3, 5, 7])
def test_r3_3_miyoshi_draws_one_more(pool, n):
    """R3.3 / R12 畿内の覇者: a deck containing 三好長慶 (the 雑賀 army) draws initial_hand + 1,
    in either seat, whatever the seed (even when 三好長慶 is in the walls); the other deck does
    not."""
    r = rules(initial_hand=n)
    assert "三好長慶" in deck_counter(load_army("saika", pool))
    assert "三好長慶" not in deck_counter(load_army("oda", pool))
    for seed in range(10):
        both = deal(pool, r, "saika", "saika", seed)
        assert [both.zone(s, "hand_count") for s in SEATS] == [n + 1, n + 1]
        a_only = deal(pool, r, "saika", "oda", seed)
        assert [a_only.zone(s, "hand_count") for s in SEATS] == [n + 1, n]
        b_only = deal(pool, r, "oda", "saika", seed)
        assert [b_only.zone(s, "hand_count") for s in SEATS] == [n, n + 1]


# ------------------------------------------------------------------ R3.2 legacy logistics


def test_r3_2_legacy_logistics_three_face_up_cards(pool):
    """R3.2: with `logistics` on, 3 cards go face up to 兵站 — visible to the opponent."""
    for seed in range(10):
        g = deal(pool, RuleSet.preset("legacy_testlab"), "oda", "mouri", seed)
        for seat in SEATS:
            logi = g.zone(seat, "logistics")
            assert len(logi) == 3
            other = "B" if seat == "A" else "A"
            assert g.observation(other)["players"][seat]["logistics"] == logi
        g2 = deal(pool, rules(logistics=True), "oda", "mouri", seed)
        assert [len(g2.zone(s, "logistics")) for s in SEATS] == [3, 3]


def test_r3_2_no_logistics_when_off(pool):
    """R3.2: with `logistics` off no card goes to 兵站 (second edition, and legacy with it off)."""
    off_legacy = rules("legacy_testlab", logistics=False, odawara="draw")
    for r in (RuleSet(), RuleSet.preset("sekigahara_trial"), off_legacy):
        for seed in range(5):
            g = deal(pool, r, "oda", "mouri", seed)
            for seat in SEATS:
                assert g.zone(seat, "logistics") == []
                assert len(g.zone(seat, "deck")) == DECK_SIZE - r.walls - 5


# ------------------------------------------------------------------ R3.4 mulligan


def test_r3_4_mulligan_offered_when_no_low_unit(pool, decks):
    """R3.4: with `mulligan` on, a hand without a unit of strength ≤3 gets the keep/mulligan
    decision, for each seat that qualifies."""
    r = rules(mulligan=True)
    g = deal(pool, r, decks["high"], decks["high"], 1)
    asked = []
    while int(g.s[G_PHASE]) == PH_MULLIGAN:
        seat = g.to_move
        assert {a.text for a in g.legal_actions()} == {f"{seat} keep", f"{seat} mulligan"}
        asked.append(seat)
        g.step(f"{seat} keep")
    assert asked == ["A", "B"]
    assert mulligan_texts(g) == set()


def test_r3_4_mulligan_redraws_same_count_from_reshuffled_deck(pool, decks):
    """R3.4: a mulligan shuffles the hand back and draws the same count: the hand's size, the
    walls and the player's cards are unchanged, the hand changes, and a card of the old hand can
    come back (it was shuffled in, not set aside)."""
    r = rules(mulligan=True)
    changed = came_back = 0
    for seed in range(40):
        g = deal(pool, r, decks["distinct"], decks["low"], seed)
        assert int(g.s[G_PHASE]) == PH_MULLIGAN and g.to_move == "A"
        old_hand, walls = g.zone("A", "hand"), g.zone("A", "walls")
        before = all_cards(g, "A")
        g.step("A mulligan")
        new_hand = g.zone("A", "hand")
        assert g.zone("A", "hand_count") == sum(old_hand.values()) == 5
        assert sum(new_hand.values()) == 5
        assert g.zone("A", "walls") == walls
        assert all_cards(g, "A") == before
        assert len(g.zone("A", "deck")) == DECK_SIZE - 7 - 5
        changed += new_hand != old_hand
        came_back += bool(set(new_hand) & set(old_hand))
        # one mulligan only; B's hand has ≤3 units, so the first leader turn follows
        assert mulligan_texts(g) == set()
        assert int(g.s[G_PHASE]) != PH_MULLIGAN
    assert changed >= 35
    assert came_back >= 15  # ≈75% expected; 0 if the old hand were set aside


def test_r3_4_opening_statistics_follow_the_mulligan(pool, decks):
    """ST_OPENING (copies in the opening hand) counts the dealt hand, and the redrawn hand
    after a mulligan."""
    r = rules(mulligan=True)

    def opening(g, seat):
        base = ST_BASE + ST_OPENING * NL
        out = Counter()
        lo = 0 if seat == "A" else len(g.decks[0].entries)
        for i in range(lo, lo + len(g.decks[SEATS.index(seat)].entries)):
            if g.s[base + i]:
                out[g.names[i]] += int(g.s[base + i])
        return out

    for seed in range(10):
        g = deal(pool, r, decks["distinct"], decks["high"], seed)
        for seat in SEATS:
            assert opening(g, seat) == Counter(g.zone(seat, "hand"))
        g.step("A mulligan")
        g.step("B mulligan")
        for seat in SEATS:
            assert opening(g, seat) == Counter(g.zone(seat, "hand"))
            assert sum(opening(g, seat).values()) == 5


def test_r3_4_mulligan_keeps_miyoshi_count(pool, decks):
    """R3.4 + 畿内の覇者: a mulligan redraws the same count — 6 for a 三好長慶 deck."""
    r = rules(mulligan=True)
    for seed in range(5):
        g = deal(pool, r, decks["miyoshi_high"], decks["low"], seed)
        assert g.zone("A", "hand_count") == 6
        g.step("A mulligan")
        assert g.zone("A", "hand_count") == 6


def test_r3_4_keep_keeps(pool, decks):
    """R3.4: keep leaves the hand and the deck order exactly as dealt."""
    r = rules(mulligan=True)
    for seed in range(10):
        g = deal(pool, r, decks["high"], decks["high"], seed)
        snap = snapshot(g)
        g.step("A keep")
        g.step("B keep")
        assert snapshot(g) == snap
        assert int(g.s[G_PHASE]) == PH_LEADER_START


def test_r3_4_no_mulligan_with_a_low_unit(pool, decks):
    """R3.4: a hand holding a unit of strength ≤3 gets no mulligan decision."""
    r = rules(mulligan=True)
    for seed in range(10):
        g = deal(pool, r, decks["low"], decks["low"], seed)
        assert int(g.s[G_PHASE]) == PH_LEADER_START
        assert mulligan_texts(g) == set()


def test_r3_4_mulligan_decision_iff_no_low_unit_real_army(pool):
    """R3.4 on a real army (legacy preset, mulligan on): over many deals, exactly the seats whose
    opening hand has no unit of strength ≤3 are asked (tactics and castles have no strength)."""
    r = RuleSet.preset("legacy_testlab")
    seen_due = seen_not_due = 0
    for seed in range(60):
        g = deal(pool, r, "oda", "honganji", seed)
        due = [seat for seat in SEATS if not has_low_unit(pool, g.zone(seat, "hand"))]
        asked = []
        while int(g.s[G_PHASE]) == PH_MULLIGAN:
            asked.append(g.to_move)
            g.step(f"{g.to_move} keep")
        assert asked == due, seed
        seen_due += len(due)
        seen_not_due += 2 - len(due)
    assert seen_due > 0 and seen_not_due > 0


def test_r3_4_mulligan_off_no_decision(pool, decks):
    """R3.4 / R14: `mulligan` off (second edition) — no decision even for a hand with no ≤3."""
    for seed in range(10):
        g = deal(pool, RuleSet(), decks["high"], decks["high"], seed)
        assert int(g.s[G_PHASE]) == PH_LEADER_START
        assert mulligan_texts(g) == set()
        assert not has_low_unit(pool, g.zone("A", "hand"))


def test_r3_4_mulligan_then_fixed_first_player_leads(pool, decks):
    """R3.4 + R3.5: after both mulligan decisions the fixed first player (B) takes the first
    leader turn."""
    r = rules(mulligan=True, first_player="B")
    g = deal(pool, r, decks["high"], decks["high"], 2)
    g.step("A mulligan")
    g.step("B keep")
    acts = g.legal_actions()
    assert g.to_move == "B" and acts and all(a.text.startswith("B ") for a in acts)


# ------------------------------------------------------------------ R3.5 first player


@pytest.mark.parametrize("seat", ["A", "B"])
def test_r3_5_fixed_first_player(pool, seat):
    """R3.5: a fixed first player (rules `first_player` or Game(first=…)) takes the first
    leader turn, whatever the seed."""
    for seed in range(15):
        for g in (
            deal(pool, rules(first_player=seat), "oda", "seigun", seed),
            Game(RuleSet(), "oda", "seigun", seed=seed, first=seat, pool=pool),
        ):
            assert g.to_move == seat
            assert g.leader == seat
            assert int(g.s[G_FIRST]) == SEATS.index(seat)
            assert all(a.text.startswith(seat + " ") for a in g.legal_actions())


def test_r3_5_random_first_player_both_seats_and_reproducible(pool):
    """R3.5: a random first player comes from the seed: both seats occur over seeds, and the
    same seed always gives the same first player (recorded in the state)."""
    firsts = []
    for seed in range(40):
        g = deal(pool, RuleSet(), "oda", "seigun", seed)
        again = deal(pool, RuleSet(), "oda", "seigun", seed)
        assert g.to_move == again.to_move
        assert int(g.s[G_FIRST]) == SEATS.index(g.to_move)
        firsts.append(g.to_move)
    assert 8 <= firsts.count("A") <= 32, firsts


# ------------------------------------------------------------------ seeding


@pytest.mark.parametrize("preset", list(PRESETS))
def test_r3_same_seed_same_deal(pool, preset):
    """R3: the same seed gives the same deal (deck order, walls, hand, logistics, first player)."""
    r = rules(preset, mulligan=False)
    for seed in (0, 7, 123456789):
        g1 = deal(pool, r, "houjou", "tougun", seed)
        g2 = deal(pool, r, "houjou", "tougun", seed)
        assert snapshot(g1) == snapshot(g2)
        assert g1.to_move == g2.to_move
        assert (g1.s == g2.s).all()


def test_r3_different_seeds_differ(pool):
    """R3.1: different seeds shuffle differently (and the two seats are shuffled apart)."""
    snaps = [snapshot(deal(pool, RuleSet(), "oda", "oda", seed)) for seed in range(20)]
    decks_a = {tuple(s["A"]["deck"]) for s in snaps}
    assert len(decks_a) == 20
    assert sum(s["A"] == s["B"] for s in snaps) == 0


@pytest.mark.parametrize(
    "base,over",
    [
        (
            "second_edition",
            dict(
                damage="last_set_size",
                gun="retreat",
                leader_pass="only_if_no_play",
                leader_pass_cost="none",
                hand_cap=7,
                broken_walls="to_graveyard",
                max_turns=30,
            ),
        ),
        (
            "legacy_testlab",
            dict(
                damage="plays",
                gun="kill",
                odawara="draw",
                leader_pass_cost="wall_to_hand",
                hand_cap=0,
            ),
        ),
        ("sekigahara_trial", dict(gun="retreat")),
    ],
)
def test_r3_deal_independent_of_later_toggles(pool, base, over):
    """R3: toggles that act after set-up (damage, gun, 見送り, hand_cap, broken walls, odawara,
    max_turns) do not change the deal: paired games with one seed deal identically."""
    r1 = rules(base, mulligan=False)
    r2 = r1.with_overrides(over)
    assert r1 != r2
    for seed in range(8):
        g1 = deal(pool, r1, "saika", "uesugi", seed)
        g2 = deal(pool, r2, "saika", "uesugi", seed)
        assert snapshot(g1) == snapshot(g2), seed
        assert g1.to_move == g2.to_move


def test_r3_deal_independent_of_first_player_and_mulligan_toggles(pool):
    """R3.1–3.3 happen before the first player is chosen and before any mulligan, so fixing the
    first player or turning the mulligan on (and keeping) leaves walls, hands and deck alone."""
    base = RuleSet()
    for seed in range(10):
        snap = snapshot(deal(pool, base, "oda", "takeda", seed))
        for seat in SEATS:
            assert snapshot(deal(pool, rules(first_player=seat), "oda", "takeda", seed)) == snap
        g = deal(pool, rules(mulligan=True), "oda", "takeda", seed)
        while int(g.s[G_PHASE]) == PH_MULLIGAN:
            g.step(f"{g.to_move} keep")
        assert snapshot(g) == snap


# ------------------------------------------------------------------ R1 conservation


@pytest.mark.parametrize("preset", list(PRESETS))
def test_r1_card_conservation_after_setup(pool, decks, preset):
    """R1: right after set-up every card of each deck is in exactly one zone: deck + walls +
    logistics + hand = 30 per player, and the multiset equals the deck list."""
    r = rules(preset, mulligan=False)
    armies = [load_army(a, pool) for a in ARMIES] + [decks["castles"], decks["miyoshi_high"]]
    for k, da in enumerate(armies):
        db = armies[(k + 3) % len(armies)]
        for seed in range(3):
            g = deal(pool, r, da, db, seed)
            for seat, d in zip(SEATS, (da, db)):
                n = (
                    len(g.zone(seat, "deck"))
                    + len(g.zone(seat, "walls"))
                    + len(g.zone(seat, "logistics"))
                    + g.zone(seat, "hand_count")
                )
                assert n == DECK_SIZE, (d.key, seat, seed)
                assert all_cards(g, seat) == deck_counter(d), (d.key, seat, seed)
                assert g.zone(seat, "deck_count") == len(g.zone(seat, "deck"))


def test_r1_conservation_after_mulligan(pool, decks):
    """R1 + R3.4: the mulligan keeps all 30 cards in deck + walls + logistics + hand."""
    r = RuleSet.preset("legacy_testlab")
    for seed in range(10):
        g = deal(pool, r, decks["castles"], decks["distinct"], seed)
        while int(g.s[G_PHASE]) == PH_MULLIGAN:
            g.step(f"{g.to_move} mulligan")
        for seat, key in zip(SEATS, ("castles", "distinct")):
            assert all_cards(g, seat) == deck_counter(decks[key])
            assert not set(g.zone(seat, "walls") + g.zone(seat, "logistics")) & set(CASTLES4)


def test_deck_kinds_sanity(pool, decks):
    """The test decks are what the tests assume (guards the tests themselves)."""
    for key in ("high", "distinct", "miyoshi_high", "castles"):
        for c, _ in decks[key].entries:
            assert not (c.is_unit and c.strength <= 3), (key, c.name)
    assert all(
        c.is_unit and c.strength <= 3 for c, _ in decks["low"].entries if c.kind != Kind.GENERAL
    )
    assert len(decks["distinct"].entries) == 30
