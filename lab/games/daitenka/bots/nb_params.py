"""Offsets of the bot spec array (int64[BP_SIZE]) shared by the compiled bots and the Python
persona tables. Weights are stored ×100; the expert reuses the search fields; the strong bot's
feature weights (×10⁵) follow them."""

BOT_RANDOM = 0
BOT_HEURISTIC = 1
BOT_SEARCH = 2
BOT_EXPERT = 3
BOT_STRONG = 4
BP_KIND = 0
BP_WALL_GAIN = 1  # value of breaking one opponent wall
BP_WALL_LOSS = 2  # value of keeping one own wall
BP_CARD = 3  # value of one point of card strength
BP_INF_RESERVE = 4  # ∞ is held back unless this many walls (×100) are at stake
BP_TACTIC = 5  # eagerness for tactics and 籠城
BP_MIOKURI = 6  # eagerness for 見送り
BP_FIRE = 7  # eagerness for 鉄砲 fire
BP_MULLIGAN = 8  # 1: redraw a hand with no unit of strength ≤3
BP_RETURN_MIN = 9  # 帰陣 only units worth at least this
BP_BUILD = 10  # eagerness for 築城
BP_BIG = 11  # bonus per extra card in a led set
BP_SIMS = 12  # search: simulations per decision
BP_UCB = 13  # search: UCB1 exploration constant ×100
BP_WIDEN = 14  # expert: progressive widening, children allowed per √visit ×100
BP_TICKS = 15  # expert: time budget per decision in clock ticks (0: simulations only)
BP_DEPTH = 16  # expert: deepest tree node, in decisions from the root (0: no limit)
BP_CUTOFF = 17  # expert: a playout is scored by lab.games.daitenka.bots.nb_eval at its k-th leader-turn start (0: played to the end)
BP_CAND = 18  # strong: steps its lookahead tries (0: none; it reuses BP_SIMS and BP_CUTOFF)
BP_MARGIN = 19  # strong: … when the runner-up's policy score is within this ×100 of the best
BP_W = 20  # strong: its N_W feature weights ×10⁵ (lab.games.daitenka.bots.nb_strong)
N_W = 126
BP_ALT = BP_W + N_W  # strong: a second heuristic's fields (the tuned persona), offsets as above
BP_SIZE = BP_ALT + BP_W
