"""``lab serve``: the lab as a local web app (the 試験場 play page, experiments, answers).

Owns the command's options and what it says before it serves: the address, the folders it may
read and write, and a warning when ``--host`` opens it to other machines. The app itself is
``lab.serve``; a missing web extra is one line naming the install command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lab.cli.common import command, err, warn
from lab.errors import LabError

DEFAULT_HOST = "127.0.0.1"


@command("serve")
def serve_command(
    port: Annotated[
        int,
        typer.Option(
            "--port", "-p", min=0, max=65535, help="TCP port to listen on (0: any free port)."
        ),
    ] = 8765,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            metavar="ADDRESS",
            help="Address to listen on. The default, 127.0.0.1, is reachable from this machine "
            "only; another address (0.0.0.0: every interface) lets anyone who can reach it "
            "use the lab — there is no login.",
        ),
    ] = DEFAULT_HOST,
    results: Annotated[
        Path,
        typer.Option(
            "--results",
            metavar="DIR",
            help="The results folder the page reads and writes (runs, reports, value and balance "
            "results, replays, uploaded decks and configs). Nothing outside it is written.",
        ),
    ] = Path("results"),
    configs: Annotated[
        list[Path] | None,
        typer.Option(
            "--configs",
            metavar="DIR",
            help="A folder of experiment configs the page offers (read only; repeatable). "
            "Default: configs.",
        ),
    ] = None,
) -> None:
    """Serve the lab as a local web page: play a match under any rules (試験場), run an
    experiment and watch it, read its summary, report, card value and balance proposals.

    Open the printed address in a browser; Ctrl-C stops the server (and stops the runs it
    started, keeping their finished chunks). See docs/serve.md.
    """
    try:
        import uvicorn

        from lab.serve import create_app
    except ImportError as e:
        raise LabError(
            f"lab serve needs the web extra ({e.name} is missing): pip install -e '.[web]'"
        ) from None
    folders = configs or [Path("configs")]
    for f in folders:
        if not f.is_dir():
            raise LabError(f"--configs {f} is not a folder")
    if results.exists() and not results.is_dir():
        raise LabError(f"--results {results} is a file; give a folder")
    local = host in ("127.0.0.1", "localhost", "::1")
    if not local:
        warn(
            f"--host {host}: anyone who can reach this machine on port {port} can use the lab "
            "(play, start runs, read every result) — there is no login; use it on a trusted "
            "network only"
        )
    app = create_app(
        results, folders, hosts=(("127.0.0.1", "localhost", "::1", "[::1]") if local else ())
    )
    if port == 0:  # any free port: chosen here, so the address printed is the one served
        import socket

        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
            s.bind((host, 0))
            port = s.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    err.print(
        f"lab serve: http://{shown}:{port}/ — results {results.resolve()}, configs "
        f"{', '.join(str(f.resolve()) for f in folders)} (Ctrl-C stops)",
        soft_wrap=True,
    )
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
