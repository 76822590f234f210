"""Synthetic records shaped like a run's (docs/records.md), with known effects built in.

Not a game simulation: outcomes come from a logistic model of known army strengths, a first-player
edge per variant, a per-deal shared noise, and known card effects for cards in hand; deck orders
come from the real army decks shuffled per (matchup, deal, seat side) — the same across variants
and tiers, as the runner's deal stream is — so walls, opening hands, deck draws and wall-gained
cards follow the deck order. Abilities fire with known per-ability rates, one ability is dead
(郡山城's 百万一心 by default) and one is rare. Used by the statistics, report and notebook tests
until a real run exists; ``write_results`` lays the frames out as a results folder (either layout).
"""

from __future__ import annotations

import json
from itertools import combinations_with_replacement
from pathlib import Path

import numpy as np
import pandas as pd

from lab.games.daitenka.cards.pool import load_army, load_pool

ARMIES = ("oda", "takeda", "uesugi", "mouri")
STRENGTH = {"oda": 0.30, "takeda": 0.10, "uesugi": -0.10, "mouri": -0.30}
VARIANTS = {
    "base": {"walls": 7, "first_edge": 0.15, "shift": {}},
    "walls6": {"walls": 6, "first_edge": 0.45, "shift": {"takeda": 0.5}},
}
# tier: (bot label, multiplier of army strength differences, multiplier of game length)
TIERS = {
    "random-vs-random": ("random", 0.4, 1.0),
    "heuristic-vs-heuristic": ("heuristic", 1.0, 1.3),
}
CARD_EFFECTS = {"織田信長": 0.8, "足軽6": -0.15}
DEAD = ("hyakuman_isshin",)
RARE = {"shirowari": 0.004}
FIRE_RATE = 0.45
INITIAL_HAND = 5


def synthetic_records(
    armies=ARMIES,
    *,
    variants=None,
    tiers=None,
    deals: int = 20,
    seed: int = 0,
    mirrors: bool = True,
    strength=None,
    card_effects=None,
    dead=DEAD,
    rare=None,
    draw_rate: float = 0.03,
):
    """(games, cards) DataFrames with every documented column."""
    variants = variants or VARIANTS
    tiers = tiers or TIERS
    strength = {**STRENGTH, **(strength or {})}
    card_effects = CARD_EFFECTS if card_effects is None else card_effects
    rare = RARE if rare is None else rare
    pool = load_pool()
    decks = {a: load_army(a, pool) for a in armies}
    deck_ids = {a: np.array(d.card_indices()) for a, d in decks.items()}
    types = {a: [c.index for c, _ in d.entries] for a, d in decks.items()}
    names = {a: d.name for a, d in decks.items()}
    rng = np.random.default_rng(seed)

    pairs = [
        (i, j) for i, j in combinations_with_replacement(range(len(armies)), 2) if mirrors or i != j
    ]
    perms = {}
    for m, (i, j) in enumerate(pairs):
        for deal in range(deals):
            for side in (0, 1):
                rng_deal = np.random.default_rng([seed, m, deal, side])
                perms[(m, deal, side)] = rng_deal.permutation(30)
    noise = np.random.default_rng([seed, 999]).normal(0, 0.4, size=(len(pairs), deals))

    # ---- one row per game
    rows = []
    cell = 0
    for vname, v in variants.items():
        for m, (i, j) in enumerate(pairs):
            for tname in tiers:
                for deal in range(deals):
                    for swapped in (False, True):
                        a, b = (j, i) if swapped else (i, j)
                        rows.append((cell, vname, m, tname, deal, swapped, a, b))
                cell += 1
    g = pd.DataFrame(rows, columns=["cell", "variant", "m", "tier", "deal", "swapped", "ia", "ib"])
    n = len(g)
    g["game_id"] = np.arange(n, dtype=np.int64) + 1000
    g["army_a"] = [armies[k] for k in g["ia"]]
    g["army_b"] = [armies[k] for k in g["ib"]]
    walls = g["variant"].map({k: v["walls"] for k, v in variants.items()}).to_numpy()
    tmult = g["tier"].map({k: t[1] for k, t in tiers.items()}).to_numpy()
    tlen = g["tier"].map({k: t[2] for k, t in tiers.items()}).to_numpy()
    first_a = rng.random(n) < 0.5
    turns = 6 + rng.poisson(12 * tlen)
    draws_a = np.minimum(turns // 2 + (~first_a), 30)
    draws_b = np.minimum(turns // 2 + first_a, 30)

    # ---- deck order per seat: zones 0 wall, 1 opening, 2 drawn, 3 still in the deck
    def seat_orders(seat):
        side = np.where(g["swapped"], 1, 0) if seat == "A" else np.where(g["swapped"], 0, 1)
        arm = g["army_a"] if seat == "A" else g["army_b"]
        order = np.stack(
            [
                deck_ids[arm.iloc[r]][perms[(g["m"].iloc[r], g["deal"].iloc[r], side[r])]]
                for r in range(n)
            ]
        )
        pos = np.arange(30)[None, :]
        d = draws_a if seat == "A" else draws_b
        zone = np.where(
            pos < walls[:, None],
            0,
            np.where(
                pos < walls[:, None] + INITIAL_HAND,
                1,
                np.where(pos < walls[:, None] + INITIAL_HAND + d[:, None], 2, 3),
            ),
        )
        return order, zone

    order_a, zone_a = seat_orders("A")
    order_b, zone_b = seat_orders("B")
    eff = np.zeros(len(pool))
    for name, e in card_effects.items():
        eff[pool.get(name).index] = e

    def hand_effect(order, zone):
        in_hand = np.zeros((n, len(pool)), bool)
        rows_ = np.repeat(np.arange(n), 30)
        np.logical_or.at(in_hand, (rows_, order.ravel()), (zone.ravel() == 1) | (zone.ravel() == 2))
        return in_hand @ eff

    s = np.array([strength.get(a, 0.0) for a in armies])
    shift_a, shift_b = (
        np.array([variants[v]["shift"].get(a, 0.0) for v, a in zip(g["variant"], g[col])])
        for col in ("army_a", "army_b")
    )
    edge = g["variant"].map({k: v["first_edge"] for k, v in variants.items()}).to_numpy()
    orient = np.where(g["swapped"], -1.0, 1.0)
    logit = (
        tmult * (s[g["ia"]] - s[g["ib"]])
        + shift_a
        - shift_b
        + edge * np.where(first_a, 1.0, -1.0)
        + orient * noise[g["m"], g["deal"]]
        + hand_effect(order_a, zone_a)
        - hand_effect(order_b, zone_b)
    )
    a_wins = rng.random(n) < 1 / (1 + np.exp(-logit))
    drawn_game = rng.random(n) < draw_rate
    winner = np.where(drawn_game, "draw", np.where(a_wins, "A", "B"))
    fell = rng.random(n) < 0.85
    end = np.where(
        drawn_game,
        np.where(rng.random(n) < 0.5, "turn_limit", "stalemate"),
        np.where(fell, "castle_fell", "exhaustion"),
    )
    w_walls = rng.integers(1, walls + 1)
    l_walls = np.where(fell, 0, rng.integers(1, 3, size=n))
    d_walls = rng.integers(1, walls + 1)
    walls_a = np.where(drawn_game, d_walls, np.where(a_wins, w_walls, l_walls))
    walls_b = np.where(drawn_game, walls - d_walls + 1, np.where(a_wins, l_walls, w_walls))
    comeback = rng.random(n) < 0.15
    w_def = np.where(comeback, rng.integers(3, 6, size=n), rng.integers(0, 3, size=n))
    l_def = rng.integers(0, 5, size=n)
    g["max_deficit_a"] = np.where(a_wins & ~drawn_game, w_def, l_def).astype(np.int32)
    g["max_deficit_b"] = np.where(~a_wins & ~drawn_game, w_def, l_def).astype(np.int32)
    g["first"] = np.where(first_a, "A", "B")
    g["winner"] = winner
    g["winner_army"] = np.where(
        winner == "A", g["army_a"], np.where(winner == "B", g["army_b"], "")
    )
    g["end_reason"] = end
    g["leader_turns"] = turns.astype(np.int32)
    g["battles"] = np.maximum(1, rng.binomial(turns, 0.8)).astype(np.int32)
    g["decisions"] = (g["battles"] * 4 + turns).astype(np.int32)
    g["walls_a"], g["walls_b"] = walls_a.astype(np.int32), walls_b.astype(np.int32)
    g["deck_a"] = np.maximum(0, 30 - walls - INITIAL_HAND - draws_a).astype(np.int32)
    g["deck_b"] = np.maximum(0, 30 - walls - INITIAL_HAND - draws_b).astype(np.int32)
    g["army_a_name"] = g["army_a"].map(names)
    g["army_b_name"] = g["army_b"].map(names)
    bot = g["tier"].map({k: t[0] for k, t in tiers.items()})
    g["bot_a"], g["bot_b"] = bot, bot
    for key, val in (
        ("logistics", False),
        ("hand_cap", 0),
        ("initial_hand", INITIAL_HAND),
        ("mulligan", False),
        ("damage", "plays"),
        ("leader_pass", "always"),
        ("leader_pass_cost", "wall_to_hand"),
        ("gun", "kill"),
        ("odawara", "draw"),
        ("broken_walls", "to_hand"),
        ("max_turns", 500),
        ("first_player", "random"),
    ):
        g[key] = val
    g["walls"] = walls.astype(np.int32)
    g["seed_words"] = [list(rng.integers(0, 2**31, size=12)) for _ in range(n)]
    games = g[
        [
            "game_id",
            "cell",
            "variant",
            "walls",
            "logistics",
            "hand_cap",
            "initial_hand",
            "mulligan",
            "damage",
            "leader_pass",
            "leader_pass_cost",
            "gun",
            "odawara",
            "broken_walls",
            "max_turns",
            "first_player",
            "army_a",
            "army_b",
            "army_a_name",
            "army_b_name",
            "bot_a",
            "bot_b",
            "tier",
            "deal",
            "swapped",
            "first",
            "winner",
            "winner_army",
            "end_reason",
            "leader_turns",
            "battles",
            "decisions",
            "walls_a",
            "walls_b",
            "deck_a",
            "deck_b",
            "max_deficit_a",
            "max_deficit_b",
            "seed_words",
        ]
    ]

    # ---- cards: one row per game × seat × card type of that seat's deck
    fire = {}
    for c in pool:
        for ab in c.abilities:
            fire[ab.id] = 0.0 if (ab.id in dead or not ab.rows) else rare.get(ab.id, FIRE_RATE)
    parts = []
    for seat, order, zone, walls_left, won in (
        ("A", order_a, zone_a, walls_a, winner == "A"),
        ("B", order_b, zone_b, walls_b, winner == "B"),
    ):
        broken = np.clip(walls - walls_left, 0, walls)
        arm = (g["army_a"] if seat == "A" else g["army_b"]).to_numpy()
        for army in armies:
            rows_ = np.flatnonzero(arm == army)
            if len(rows_) == 0:
                continue
            tlist = types[army]
            local = {t: k for k, t in enumerate(tlist)}
            lo = np.vectorize(local.get)(order[rows_])
            z = zone[rows_]
            pos = np.arange(30)[None, :]
            gained_pos = (z == 0) & (pos < broken[rows_, None])
            m_, T = len(rows_), len(tlist)
            cnt = {k: np.zeros((m_, T), np.int64) for k in ("copies", "opening", "drawn", "gained")}
            r_idx = np.repeat(np.arange(m_), 30)
            np.add.at(cnt["copies"], (r_idx, lo.ravel()), 1)
            np.add.at(cnt["opening"], (r_idx, lo.ravel()), (z == 1).ravel())
            np.add.at(cnt["drawn"], (r_idx, lo.ravel()), (z == 2).ravel())
            np.add.at(cnt["gained"], (r_idx, lo.ravel()), gained_pos.ravel())
            draw_turn = np.where(z == 2, (pos - walls[rows_, None] - INITIAL_HAND) * 2 + 1, 10**6)
            fd = np.full((m_, T), 10**6)
            np.minimum.at(fd, (r_idx, lo.ravel()), draw_turn.ravel())
            fd = np.where(fd >= 10**6, 0, fd)
            hand = cnt["opening"] + cnt["drawn"] + cnt["gained"]
            played = rng.binomial(hand, 0.7)
            won_sets = rng.binomial(played, np.where(won[rows_], 0.55, 0.3)[:, None])
            died = rng.binomial(played, 0.5)
            trig = np.zeros((m_, T), np.int64)
            by_ab = [["" for _ in range(T)] for _ in range(m_)]
            for k, t in enumerate(tlist):
                card = pool.cards[t]
                counts = []
                for ab in card.abilities:
                    fired = (hand[:, k] > 0) & (rng.random(m_) < fire[ab.id])
                    c_ = np.where(fired, 1 + rng.poisson(0.5, size=m_), 0)
                    counts.append((ab.id, c_))
                    trig[:, k] += c_
                if len(card.abilities) > 1:
                    for r in range(m_):
                        by_ab[r][k] = json.dumps(
                            {aid: int(c_[r]) for aid, c_ in counts}, ensure_ascii=False
                        )
            part = pd.DataFrame(
                {
                    "game_id": np.repeat(g["game_id"].to_numpy()[rows_], T),
                    "player": seat,
                    "army": army,
                    "card": np.tile([pool.cards[t].name for t in tlist], m_),
                    "card_id": np.tile([pool.cards[t].id for t in tlist], m_),
                    "copies": cnt["copies"].ravel().astype(np.int16),
                    "opening": cnt["opening"].ravel().astype(np.int16),
                    "drawn": cnt["drawn"].ravel().astype(np.int16),
                    "first_draw_turn": fd.ravel().astype(np.int32),
                    "gained": cnt["gained"].ravel().astype(np.int16),
                    "played": played.ravel().astype(np.int16),
                    "won": won_sets.ravel().astype(np.int16),
                    "triggers": trig.ravel().astype(np.int16),
                    "triggers_by_ability": [s_ for row in by_ab for s_ in row],
                    "died": died.ravel().astype(np.int16),
                    "stolen": np.zeros(m_ * T, np.int16),
                }
            )
            parts.append(part)
    cards = (
        pd.concat(parts, ignore_index=True)
        .sort_values(["game_id", "player"], kind="stable")
        .reset_index(drop=True)
    )
    return games.reset_index(drop=True), cards


def write_results(
    path,
    games: pd.DataFrame,
    cards: pd.DataFrame,
    *,
    layout: str = "chunks",
    chunk_games: int = 400,
    manifest: dict | None = None,
) -> Path:
    """Write a results folder: manifest.json plus chunk folders or merged Parquet files."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    man = {
        "synthetic": True,
        "games": len(games),
        "variants": list(pd.unique(games["variant"])),
        "armies": sorted(set(games["army_a"]) | set(games["army_b"])),
        "tiers": list(pd.unique(games["tier"])),
    }
    man.update(manifest or {})
    (path / "manifest.json").write_text(
        json.dumps(man, ensure_ascii=False, indent=2), encoding="utf-8"
    )
    if layout == "merged":
        games.to_parquet(path / "games.parquet", index=False)
        cards.to_parquet(path / "cards.parquet", index=False)
        return path
    (path / "games").mkdir(exist_ok=True)
    (path / "cards").mkdir(exist_ok=True)
    ids = games["game_id"].to_numpy()
    for k, start in enumerate(range(0, len(games), chunk_games)):
        chunk_ids = ids[start : start + chunk_games]
        games.iloc[start : start + chunk_games].to_parquet(
            path / "games" / f"chunk-{k:05d}.parquet", index=False
        )
        cards[cards["game_id"].isin(chunk_ids)].to_parquet(
            path / "cards" / f"chunk-{k:05d}.parquet", index=False
        )
    return path


if __name__ == "__main__":  # python tests/_support/synthetic.py OUT_DIR  (an example folder)
    import sys

    out = sys.argv[1] if len(sys.argv) > 1 else "results/example"
    gms, crd = synthetic_records(deals=40)
    print(write_results(out, gms, crd))


# ------------------------------------------------------------------ coverage of the intervals


def clustered_replications(
    reps: int,
    deals: int,
    *,
    sigma: float = 1.0,
    seed: int = 0,
    strength: float = 0.3,
    shift: float = 0.25,
    card: float = 0.4,
    first_edge: float = 0.2,
    in_hand: float = 0.3,
):
    """Many independent small runs at once, with the within-deal correlation of real records.

    ``reps`` runs (column ``rep``) of oda against takeda: ``deals`` deals, each played in both
    seat orders under two variants ``v0`` and ``v1`` (the same deals). A deal carries a shared
    effect u ~ N(0, sigma) on oda's log-odds (the deck orders favour one side in both seat
    orders and every variant) and decides whether oda's card 赤備え is in its opening hand
    (probability ``in_hand``, 3 copies: the same in both seat orders). Oda's log-odds of winning:
    ``strength`` (+ ``shift`` under v1) + ``card`` if the card is in hand + u ± ``first_edge``.

    Returns (games, cards, truth) where truth holds the population values the intervals should
    cover: oda's win rate per variant, the v0 → v1 change and the opening-hand effect (v0).
    """
    from scipy.special import expit

    rng = np.random.default_rng(seed)
    u = rng.normal(0, sigma, size=(reps, deals))
    hand = rng.random((reps, deals)) < in_hand
    r, d, v, s = np.meshgrid(
        np.arange(reps), np.arange(deals), [0, 1], [False, True], indexing="ij"
    )
    r, d, v, s = r.ravel(), d.ravel(), v.ravel(), s.ravel()
    n = len(r)
    oda_first = rng.random(n) < 0.5
    logit = (
        strength
        + shift * v
        + card * hand[r, d]
        + u[r, d]
        + np.where(oda_first, first_edge, -first_edge)
    )
    oda_wins = rng.random(n) < expit(logit)
    oda_seat = np.where(s, "B", "A")
    games = pd.DataFrame(
        {
            "game_id": np.arange(n, dtype=np.int64),
            "rep": r,
            "variant": np.where(v, "v1", "v0"),
            "army_a": np.where(s, "takeda", "oda"),
            "army_b": np.where(s, "oda", "takeda"),
            "tier": "t",
            "deal": d,
            "swapped": s,
            "first": np.where(oda_first, oda_seat, np.where(s, "A", "B")),
            "winner": np.where(oda_wins, oda_seat, np.where(s, "A", "B")),
            "end_reason": "castle_fell",
            "leader_turns": 10,
            "battles": 8,
            "walls_a": 1,
            "walls_b": 0,
            "max_deficit_a": 0,
            "max_deficit_b": 0,
        }
    )
    cards = pd.DataFrame(
        {
            "game_id": games["game_id"],
            "player": oda_seat,
            "army": "oda",
            "card": "赤備え",
            "copies": 3,
            "opening": np.where(hand[r, d], 1, 0),
            "drawn": 0,
            "gained": 0,
            "played": 0,
            "won": 0,
            "triggers": 0,
            "triggers_by_ability": "",
        }
    )

    # the population values, by Monte Carlo over the same model (a fixed, large sample)
    big = np.random.default_rng(seed + 1)
    m = 2_000_000
    uu = big.normal(0, sigma, m)
    first = np.where(big.random(m) < 0.5, first_edge, -first_edge)
    hh = big.random(m) < in_hand
    rate = {k: float(expit(strength + shift * k + card * hh + uu + first).mean()) for k in (0, 1)}
    with_card = float(expit(strength + card + uu + first).mean())
    without = float(expit(strength + uu + first).mean())
    truth = {
        "win_rate": {"v0": rate[0], "v1": rate[1]},
        "change": rate[1] - rate[0],
        "opening_hand": with_card - without,
    }
    return games, cards, truth
