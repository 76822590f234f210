"""The first ten minutes, measured: a fresh clone, the README's first command, and it again.

    python benchmarks/coldstart.py [--repo PATH] [--keep]

Clones the repository (committed work only) into a temporary folder, then times, each with an
empty numba cache of its own (XDG_CACHE_HOME inside the folder):

1. the install: the README's first command up to ``lab run`` (``python3 -m venv .venv && …
   pip install --no-compile -e .``), quietly; pip's own download cache is used as on any machine
   that has installed Python packages before;
2. the first ``lab run configs/default.toml``: compile (its share, from the run's manifest) and
   the 81,000 games, to the printed summary;
3. the same command again, which finds the folder complete and prints the summary (exit 0);
4. ``lab run configs/default.toml --fresh`` on the warm cache: the games alone.

It prints the figures — wall time, and the CPU time of each step's processes, which a shared
machine's load changes much less — and asserts nothing (targets live in the issues and the
README). The README's timings come from this script on a fresh clone.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
_cpu: list[float] = []  # each command's CPU seconds, its processes' (user + system), in order


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _timed(cmd: str, cwd: Path, env: dict) -> tuple[float, subprocess.CompletedProcess]:
    t, cpu = time.perf_counter(), _children_cpu()
    out = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t
    # on a shared machine the wall time follows the load; the CPU time much less
    _cpu.append(_children_cpu() - cpu)
    if out.returncode != 0:
        sys.exit(f"`{cmd}` failed ({out.returncode}):\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
    return dt, out


def readme_install(readme: Path = README) -> str:
    """The README's set-up command up to its ``lab run``: the install a new user types."""
    text = readme.read_text(encoding="utf-8")
    command = text.split("```sh\n", 1)[1].split("\n", 1)[0]
    install = command.split(" && lab run", 1)[0]
    if "pip install" not in install or install == command:
        sys.exit(f"{readme}: its first sh block is not `… pip install … && lab run …`: {command}")
    return install.replace("pip install", "pip install --progress-bar off -q", 1)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--keep", action="store_true", help="keep the temporary clone")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="lab-coldstart-"))
    load = os.getloadavg()
    try:
        clone = tmp / "clone"
        t_clone, _ = _timed(f"git clone --quiet {args.repo} {clone}", tmp, dict(os.environ))
        env = {
            k: v
            for k, v in os.environ.items()
            # a fresh machine sets none of these; PYTHONDONTWRITEBYTECODE (set on some CI and
            # sandbox images) would make every start compile its imports from source again
            if k
            not in (
                "NUMBA_CACHE_DIR",
                "PYTHONPATH",
                "VIRTUAL_ENV",
                "NUMBA_DISABLE_JIT",
                "PYTHONDONTWRITEBYTECODE",
            )
        }
        env["XDG_CACHE_HOME"] = str(tmp / "cache")  # an empty numba cache
        env["PATH"] = os.pathsep.join(
            p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p
        )
        activate = ". .venv/bin/activate && "
        install = readme_install(clone / "README.md")
        t_install, _ = _timed(install, clone, env)
        t_first, first = _timed(activate + "lab run configs/default.toml", clone, env)
        manifest = json.loads((clone / "results" / "default" / "manifest.json").read_text())
        compile_s = manifest["sessions"][0].get("compile_s")
        t_again, again = _timed(activate + "lab run configs/default.toml", clone, env)
        t_warm, _ = _timed(activate + "lab run configs/default.toml --fresh", clone, env)
        cpu = _cpu  # clone, install, first, again, fresh
        rows = [
            ("git clone", t_clone, cpu[0]),
            ("venv + the README's pip install", t_install, cpu[1]),
            ("first lab run configs/default.toml (empty cache)", t_first, cpu[2]),
            ("  of which compiling (manifest compile_s)", compile_s, None),
            ("the same command again (folder complete)", t_again, cpu[3]),
            ("lab run … --fresh (warm cache: the games)", t_warm, cpu[4]),
            ("clone → first summary", t_clone + t_install + t_first, sum(cpu[:3])),
        ]
        print(
            f"cores: {os.cpu_count()}, load average before: {load[0]:.1f}, "
            f"after: {os.getloadavg()[0]:.1f}"
        )
        print(f"{'':52s} {'wall':>9s} {'CPU':>9s}")
        for label, sec, cpu_s in rows:
            wall = f"{sec:7.1f} s" if sec is not None else "      ? "
            print(f"{label:52s} {wall:>9s} " + (f"{cpu_s:7.1f} s" if cpu_s is not None else ""))
        print("second command's last line:", again.stdout.strip().splitlines()[-1:])
    finally:
        if args.keep:
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
