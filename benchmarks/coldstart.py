"""The first ten minutes, measured: a fresh clone, the README's first command, and it again.

    python benchmarks/coldstart.py [--repo PATH] [--keep]

Clones the repository (committed work only) into a temporary folder, then times, each with an
empty numba cache of its own (XDG_CACHE_HOME inside the folder):

1. the install: ``python3 -m venv .venv && pip install -e .`` (pip's own download cache is
   used as on any machine that has installed Python packages before);
2. the first ``lab run configs/default.toml``: compile (its share, from the run's manifest) and
   the 81,000 games, to the printed summary;
3. the same command again, which finds the folder complete and prints the summary (exit 0);
4. ``lab run configs/default.toml --fresh`` on the warm cache: the games alone.

It prints the figures and asserts nothing (targets live in the issues and the README). The
README's timings come from this script on a fresh clone.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _timed(cmd: str, cwd: Path, env: dict) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    out = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if out.returncode != 0:
        sys.exit(f"`{cmd}` failed ({out.returncode}):\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
    return dt, out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--keep", action="store_true", help="keep the temporary clone")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="lab-coldstart-"))
    try:
        clone = tmp / "clone"
        t_clone, _ = _timed(f"git clone --quiet {args.repo} {clone}", tmp, dict(os.environ))
        env = {k: v for k, v in os.environ.items()
               if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH", "VIRTUAL_ENV", "NUMBA_DISABLE_JIT")}
        env["XDG_CACHE_HOME"] = str(tmp / "cache")  # an empty numba cache
        env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                      if ".venv" not in p)
        activate = ". .venv/bin/activate && "
        t_install, _ = _timed("python3 -m venv .venv && " + activate
                              + "pip install --progress-bar off -q -e .", clone, env)
        t_first, first = _timed(activate + "lab run configs/default.toml", clone, env)
        manifest = json.loads((clone / "results" / "default" / "manifest.json").read_text())
        compile_s = manifest["sessions"][0].get("compile_s")
        t_again, again = _timed(activate + "lab run configs/default.toml", clone, env)
        t_warm, _ = _timed(activate + "lab run configs/default.toml --fresh", clone, env)
        rows = [("git clone", t_clone), ("venv + pip install -e .", t_install),
                ("first lab run configs/default.toml (empty cache)", t_first),
                ("  of which compiling (manifest compile_s)", compile_s),
                ("the same command again (folder complete)", t_again),
                ("lab run … --fresh (warm cache: the games)", t_warm),
                ("clone → first summary", t_clone + t_install + t_first)]
        print(f"cores: {os.cpu_count()}")
        for label, sec in rows:
            print(f"{label:52s} {sec:7.1f} s" if sec is not None else f"{label:52s}       ?")
        print("second command's last line:", again.stdout.strip().splitlines()[-1:])
    finally:
        if args.keep:
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
