"""lab serve speed: `python benchmarks/serve.py [--matches M] [--runs R] [--games N] [--json]`.

Two figures (issue 30):

1. **Clicks** — the server-side time of one page interaction in a match: the human's action,
   the bot's answers until the human is to move again (heuristic tier) and the new board as
   HTML, as the page's fragment request does it. A real server (uvicorn on 127.0.0.1, free port)
   serves M 大天下 matches (and M Rumble Nation matches) after its warm-up; each click's time is
   the server's own ``Server-Timing`` header (request in → response out). Median, 95th
   percentile, maximum and the share under 100 ms are printed.
2. **Run** — the default config (configs/default.toml; ``--games N`` per cell for a quick look)
   played from the page (a job started by POST, polled until done, as the page does) and by
   ``lab run CONFIG --out DIR --fresh`` in a subprocess, R times each, alternating. Timed: the
   wall clock from the start to the finish, and the manifest's games/s of the play phase. The
   ratio page ÷ CLI (games/s) is the figure the issue asks ≥ 0.9 of.

Everything is written to a temporary folder deleted afterwards. Machines are noisy: compare the
ratio, printed from one run of this script.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import uvicorn

from lab.serve import create_app, wait_warm

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_time(r: httpx.Response) -> float:
    return float(r.headers["server-timing"].split("dur=")[1])


def clicks(base: str, matches: int) -> dict:
    """Server-side ms of every click in ``matches`` matches of each game."""
    out = {}
    with httpx.Client(base_url=base, timeout=120) as c:
        for game, forms in (
            (
                "daitenka",
                [
                    {"game": "daitenka", "army": a, "vs": b, "seed": str(s)}
                    for s, (a, b) in enumerate(
                        [
                            ("oda", "takeda"),
                            ("honganji", "houjou"),
                            ("saika", "mouri"),
                            ("uesugi", "seigun"),
                            ("tougun", "oda"),
                        ]
                        * matches
                    )
                ][:matches],
            ),
            (
                "rumble_nation",
                [
                    {"game": "rumble_nation", "seed": str(s), "rule_players": str(2 + s % 3)}
                    for s in range(matches)
                ],
            ),
        ):
            times = []
            for k, form in enumerate(forms):
                r = c.post("/play", data=form, follow_redirects=False)
                assert r.status_code == 303, r.text[:300]
                match = r.headers["location"].split("m=")[1]
                view = c.get(f"/play/{match}.json").json()
                n = 0
                while not view["over"]:
                    choice = (n * 5 + k) % len(view["legal"])
                    r = c.post(
                        f"/play/{match}/act",
                        data={"i": str(choice), "step": str(view["step"])},
                        headers={"X-Fragment": "1"},
                    )
                    assert r.status_code == 200, r.text[:300]
                    times.append(server_time(r))
                    view = c.get(f"/play/{match}.json").json()
                    n += 1
            times.sort()
            out[game] = {
                "clicks": len(times),
                "median_ms": statistics.median(times),
                "p95_ms": times[int(0.95 * (len(times) - 1))],
                "max_ms": times[-1],
                "under_100ms": sum(t < 100 for t in times) / len(times),
            }
    return out


def manifest_rate(folder: Path) -> float:
    man = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return man["sessions"][-1]["games_per_s"]


def page_run(base: str, config: str, games: int | None, results: Path) -> dict:
    with httpx.Client(base_url=base, timeout=120) as c:
        t = time.perf_counter()
        r = c.post(
            "/experiments/start",
            data={
                "kind": "run",
                "config": config,
                "out": "page",
                "fresh": "1",
                "games": str(games or ""),
            },
            follow_redirects=False,
        )
        assert r.status_code == 303, r.text[:500]
        job = r.headers["location"].rsplit("/", 1)[1]
        while True:
            j = c.get(f"/jobs/{job}.json").json()
            if j["state"] not in ("starting", "running"):
                break
            time.sleep(0.5)
        wall = time.perf_counter() - t
    assert j["state"] == "done", j
    return {"wall_s": wall, "games_per_s": manifest_rate(results / "page")}


def cli_run(config: Path, games: int | None, out: Path) -> dict:
    cmd = [sys.executable, "-m", "lab.cli", "run", str(config), "--out", str(out), "--fresh"]
    if games:
        cmd += ["--games", str(games)]
    t = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT, capture_output=True)
    return {"wall_s": time.perf_counter() - t, "games_per_s": manifest_rate(out)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=20, help="matches per game for the clicks")
    ap.add_argument("--runs", type=int, default=3, help="runs of each way for the run figure")
    ap.add_argument("--games", type=int, default=None, help="deals per cell (default: the file's)")
    ap.add_argument("--config", default="configs/default.toml")
    ap.add_argument("--only", choices=("clicks", "run"), help="measure one figure only")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="lab-bench-serve-"))
    report: dict = {}
    try:
        config = ROOT / a.config
        app = create_app(tmp / "results", [config.parent])
        port = free_port()
        srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=srv.run, daemon=True)
        thread.start()
        while not srv.started:
            time.sleep(0.05)
        wait_warm(app, 600)
        base = f"http://127.0.0.1:{port}"
        if a.only != "run":
            report["clicks"] = clicks(base, a.matches)
        ref = f"configs/{config.relative_to(config.parent)}"
        page, cli = [], []
        if a.only != "clicks":
            cli_run(config, a.games, tmp / "cli")  # untimed: the compiled engine loaded once
        for _ in range(a.runs if a.only != "clicks" else 0):
            page.append(page_run(base, ref, a.games, tmp / "results"))
            cli.append(cli_run(config, a.games, tmp / "cli"))
        med = lambda rows, k: statistics.median(r[k] for r in rows)  # noqa: E731
        report["run"] = (
            None
            if not page
            else {
                "config": a.config,
                "games_per_cell": a.games,
                "runs": a.runs,
                "page": page,
                "cli": cli,
                "page_games_per_s": med(page, "games_per_s"),
                "cli_games_per_s": med(cli, "games_per_s"),
                "page_wall_s": med(page, "wall_s"),
                "cli_wall_s": med(cli, "wall_s"),
            }
        )
        if page:
            r = report["run"]
            r["ratio_games_per_s"] = r["page_games_per_s"] / r["cli_games_per_s"]
            r["ratio_wall"] = r["cli_wall_s"] / r["page_wall_s"]
        srv.should_exit = True
        thread.join(60)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if a.json:
        print(json.dumps(report, indent=1))
        return
    for game, c in report.get("clicks", {}).items():
        print(
            f"clicks {game}: {c['clicks']} clicks, server-side median {c['median_ms']:.1f} ms, "
            f"p95 {c['p95_ms']:.1f} ms, max {c['max_ms']:.1f} ms, "
            f"{100 * c['under_100ms']:.1f}% under 100 ms"
        )
    r = report["run"]
    if r is None:
        return
    games = f" --games {r['games_per_cell']}" if r["games_per_cell"] else ""
    print(
        f"run {r['config']}{games} (median of {r['runs']}): page {r['page_games_per_s']:,.0f} games/s "
        f"({r['page_wall_s']:.1f} s start to done), lab run {r['cli_games_per_s']:,.0f} "
        f"games/s ({r['cli_wall_s']:.1f} s); ratio page/CLI {r['ratio_games_per_s']:.2f} "
        f"(games/s), {r['ratio_wall']:.2f} (wall clock)"
    )


if __name__ == "__main__":
    main()
