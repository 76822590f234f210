"""``lab serve``: the lab as a local web app — the 試験場 play page, experiments and answers —
a thin layer over the functions the commands call.

- ``app``: the routes, templates and request guards (Starlette, server-rendered pages, a little
  plain JavaScript in ``static/``);
- ``play``: the page's matches (``lab.games.daitenka.play.match``, Rumble Nation's facade) and what a seat sees;
- ``jobs`` / ``child``: experiments started from the page, each in its own process calling the
  runner, ``lab value`` or ``lab balance``; progress, stop and resume;
- ``answers``: the results browser (summaries, reports, value and balance results, side by side);
- ``paths``: where the app may read and write, and the checks on every name it is given;
- ``tables``: the CLI's rich tables as HTML tables.

It needs the ``web`` extra (``pip install -e '.[web]'``). It binds 127.0.0.1 unless told
otherwise and never re-implements what a command does.
"""

from lab.serve.app import create_app, wait_warm

__all__ = ["create_app", "wait_warm"]
