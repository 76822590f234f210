"""Where the chunks are played: joblib's loky workers on this machine, or a Dask cluster
(``lab.sim.cluster``), with each chunk's receipt handed back as it finishes.

Owns the loky worker processes' conduct — a worker ignores Ctrl-C (the parent stops the run) and
leaves as soon as its parent is gone; after an early stop, loky's own threads stay quiet. The
Dask side (connecting, warming the workers, watching the cluster) belongs to ``lab.sim.cluster``.
It writes nothing itself (the game's ``play_chunk`` writes each chunk) and knows no rule.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path

from lab.sim import cluster


def chunks(todo: list, out: Path, n_jobs: int, backend: str, play_one, client=None, note=None):
    """Receipts of the chunks as they finish (in any order); ``play_one(job, out)`` plays and
    writes a chunk (the game's ``play_chunk``, a module-level function the workers import). On
    Dask, ``client`` is the cluster's client and ``note`` hears of lost workers; a lost
    cluster raises ``lab.sim.cluster.ClusterLost``."""
    if backend == "dask":
        yield from cluster.play(client, todo, out, play_one, note)
        return
    from joblib import Parallel, delayed

    target = str(out.resolve())
    tasks = (delayed(play_one)(j, target) for j in todo)
    # a chunk is already a coarse task: joblib's auto-batching would only group chunks into
    # longer batches (a longer idle tail for the last worker, a jumpier progress bar)
    options = {"return_as": "generator_unordered", "batch_size": 1}
    _quiet_resource_tracker()
    with _quiet_abort():
        yield from Parallel(
            n_jobs=n_jobs,
            backend="loky",
            pre_dispatch="4 * n_jobs",
            initializer=worker_setup,
            initargs=(os.getpid(),),
            **options,
        )(tasks)


QUIET_TRACKER = "ignore:resource_tracker:UserWarning"


def _quiet_resource_tracker() -> None:
    """loky's resource tracker (a process of its own, started with this environment) warns at
    exit about a semaphore that an interrupted executor unlinked without unregistering ("leaked
    semlock … FileNotFoundError"): it has been cleaned up, and the warning would only follow the
    run's last line. Its other output stays."""
    filters = os.environ.get("PYTHONWARNINGS", "")
    if QUIET_TRACKER not in filters.split(","):
        os.environ["PYTHONWARNINGS"] = ",".join(f for f in (filters, QUIET_TRACKER) if f)


def worker_setup(parent: int) -> None:
    """Runs once in each loky worker. Ctrl-C in a terminal reaches the whole process group: the
    parent alone stops the run (a worker's KeyboardInterrupt would only print its traceback).
    And a worker leaves as soon as its parent is gone (SIGKILL, OOM killer), instead of idling
    for loky's five-minute timeout."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(
        target=_watch_parent, args=(parent,), name="lab-watch-parent", daemon=True
    ).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


_STOPPING = threading.Event()  # set from the moment a loky dispatch is being given up
_hooks: dict = {}


def _from_joblib(tb) -> bool:
    while tb is not None:
        if f"{os.sep}joblib{os.sep}" in tb.tb_frame.f_code.co_filename:
            return True
        tb = tb.tb_next
    return False


def _quiet_loky(args) -> None:
    """threading.excepthook: once a run stops early, a joblib or loky thread tripping over the
    work items joblib dropped says nothing to the user; any other exception is shown as usual."""
    if not (_STOPPING.is_set() and _from_joblib(args.exc_traceback)):
        _hooks["previous"](args)


@contextlib.contextmanager
def _quiet_abort():
    """Mark the dispatch as stopping as soon as Ctrl-C arrives — joblib aborts the executor
    inside its own frames, before the KeyboardInterrupt reaches this one — or as it ends early
    for any other reason (GeneratorExit included: an interrupt outside the generator closes it)."""
    if threading.excepthook is not _quiet_loky:
        _hooks["previous"] = threading.excepthook
        threading.excepthook = _quiet_loky
    _STOPPING.clear()
    previous = None
    if threading.current_thread() is threading.main_thread():

        def on_sigint(signum, frame):
            _STOPPING.set()
            raise KeyboardInterrupt

        previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    except BaseException:
        _STOPPING.set()
        raise
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
