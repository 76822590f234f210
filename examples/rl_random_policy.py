"""Play a masked random policy through the PettingZoo environment against a built-in bot.

    pip install -e '.[rl]'
    python examples/rl_random_policy.py [--episodes 20] [--bot heuristic]

Seat A is the policy (here: uniform over the legal steps, read from the action mask — put a
learner there); seat B is a compiled bot choosing through lab.bots.play. Prints the policy's
score. Nothing is trained.
"""

import argparse

import numpy as np

import lab.env
from lab.bots.play import BotPlayer

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument(
        "--bot", default="heuristic", help="bot spec of seat B, e.g. tuned, strong, search"
    )
    a = ap.parse_args()
    env = lab.env.env(rules="second_edition")
    bot = BotPlayer(a.bot, rng=0)
    rng = np.random.default_rng(0)
    points = 0.0
    for episode in range(a.episodes):
        env.reset(seed=episode)
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                if agent == "A":
                    points += (reward + 1) / 2  # win 1, draw ½, loss 0
                action = None
            elif agent == "A":
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            else:
                action = info["legal_steps"].index(bot.choose(env.game).text)
            env.step(action)
    print(
        f"random policy vs {bot.spec.label}: {points:.1f} points of {a.episodes} "
        f"({points / a.episodes:.0%})"
    )
