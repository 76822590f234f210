"""The Dask side of a run: reaching the scheduler (or starting a local cluster on 127.0.0.1),
compiling the engine on every worker, and playing the chunks with the cluster watched.

Owns what a user sees of Dask: a scheduler that cannot be reached fails within seconds, before
anything is written; a lost worker becomes one note of ours (Dask replays its chunk elsewhere,
so the records do not change); a lost scheduler, a cluster left without workers, or a chunk
that kills every worker it meets ends the dispatch with ``ClusterLost``, which the runner turns
into its one line; Dask's own log lines and warnings stay off the terminal unless ``verbose``.
It writes no record itself (the game's ``play_chunk`` writes each chunk, on the worker) and knows no
rule.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import secrets
import socket
import threading
import time
import warnings
from collections import deque
from pathlib import Path

from rich.console import Console
from rich.text import Text

from lab.errors import LabError
from lab.sim.progress import engine_message, live_status, note as show_note, status

CONNECT_S = 5.0  # a live scheduler answers in milliseconds; nobody should wait 18 s to hear no
TICK_S = 0.5  # how often the dispatch looks at the cluster while it waits for chunks
POLL_S = 1.0  # how often it asks the scheduler how many workers it has
NO_WORKER_S = 10.0  # a nanny restarts a killed worker in a few seconds; longer means none comes
# Dask's loggers that print to stderr by default (distributed's own logging config), and the
# packages whose warnings it raises (e.g. "Port 8787 is already in use")
DASK_LOGGERS = ("distributed", "tornado", "bokeh")
DASK_MODULES = r"(distributed|dask|tornado|bokeh)(\.|$)"


class ClusterLost(Exception):
    """The cluster can no longer play the run: ``what`` happened, and the ``fix`` before
    ``--resume``, worded to lead into it ("once …," or "… , then"; empty when there is nothing
    to do but resume)."""

    def __init__(self, what: str, fix: str = ""):
        super().__init__(what)
        self.what = what
        self.fix = fix


# ------------------------------------------------------------------------------- connecting


@contextlib.contextmanager
def connect(scheduler: str | None, n_jobs: int, console: Console | None, verbose: bool = False):
    """A Dask client, of the cluster at ``scheduler`` or of a local cluster of ``n_jobs``
    workers, with Dask's logging kept quiet (unless ``verbose``) until it is closed. Reached
    before anything is written, so a bad address leaves no trace."""
    with contextlib.ExitStack() as stack:
        stack.enter_context(quiet_dask(verbose))
        if scheduler is None:
            with status(console, f"starting a local Dask cluster of {n_jobs} workers"):
                cluster = stack.enter_context(local_cluster(n_jobs, verbose))
            address = cluster.scheduler_address
            client = _client(address, console)
        else:
            address = scheduler
            with status(console, f"connecting to the Dask scheduler at {address}"):
                _probe(address)
                client = _client(address, None)
        stack.callback(_close, client)
        threads = sum(client.nthreads().values())
        if threads == 0:
            raise LabError(
                f"--scheduler {address}: the Dask cluster has no worker; start "
                f"some with `dask worker {address} --nthreads 1` on each machine"
            )
        if threads == 1 and console is not None:
            console.print(
                Text("warning: ", style="bold yellow")
                + Text(
                    f"the Dask cluster at {address} has one worker thread, so the run uses one "
                    f"core; start more workers (`dask worker {address} --nworkers N --nthreads 1`)"
                ),
                soft_wrap=True,
            )
        yield client


def local_cluster(n_workers: int, verbose: bool = False):
    """A LocalCluster of one-thread worker processes on 127.0.0.1. Its HTTP server (health and
    metrics routes; no dashboard without bokeh) takes a free port: Dask's default 8787 is often
    held by another cluster, and Dask then warns about it."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=n_workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        silence_logs=logging.WARNING if verbose else logging.CRITICAL,
    )


def _unreachable(address: str, reason: str) -> LabError:
    return LabError(
        f"--scheduler {address}: cannot reach a Dask scheduler ({reason}); start "
        "one with `dask scheduler` and give its tcp://HOST:PORT"
    )


def _probe(address: str) -> None:
    """Fail within seconds when no Dask scheduler answers at ``address``: Dask's own connect
    retries a refused port until its timeout, and its handshake can wait for ever on a port
    held by something else (or die on its reply with a MemoryError)."""
    from distributed.comm import parse_address
    from distributed.comm.addressing import parse_host_port

    try:
        scheme, location = parse_address(address)
        host, port = parse_host_port(location) if scheme == "tcp" else (None, None)
    except (ValueError, TypeError) as e:
        raise _unreachable(address, f"not an address: {e}") from None
    if host is not None:
        try:
            socket.create_connection((host, port), timeout=CONNECT_S).close()
        except socket.gaierror:
            raise _unreachable(address, f"unknown host {host}") from None
        except TimeoutError:
            raise _unreachable(address, f"no answer within {CONNECT_S:.0f} s") from None
        except OSError as e:
            raise _unreachable(address, (e.strerror or str(e)).lower()) from None
    answer: dict = {}
    # in a thread of its own: asyncio.run needs a thread without a running loop (a notebook's
    # has one), and the thread is given up on, not waited for, if it hangs past the deadline
    probe = threading.Thread(
        target=_identity, args=(address, answer), daemon=True, name="lab-dask-probe"
    )
    probe.start()
    probe.join(CONNECT_S + 1)
    if "identity" in answer and answer["identity"].get("type") == "Scheduler":
        return
    if "identity" in answer or (
        "error" in answer and not isinstance(answer["error"], (OSError, TimeoutError))
    ):
        raise _unreachable(address, "something answers there, but not a Dask scheduler")
    raise _unreachable(address, f"no Dask scheduler answered within {CONNECT_S:.0f} s")


def _identity(address: str, answer: dict) -> None:
    import asyncio

    from distributed.core import rpc

    async def ask():
        remote = rpc(address, timeout=CONNECT_S)
        try:
            return await asyncio.wait_for(remote.identity(), CONNECT_S)
        finally:
            await remote.close_rpc()

    try:
        answer["identity"] = asyncio.run(ask())
    except BaseException as e:  # noqa: BLE001  whatever the peer made of it, reported above
        answer["error"] = e


def _client(address: str, console: Console | None):
    from distributed import Client

    try:
        with status(console, f"connecting to the Dask scheduler at {address}"):
            return Client(address, timeout=f"{CONNECT_S}s")
    except (OSError, TimeoutError, ValueError) as e:
        raise _unreachable(address, str(e)) from None


def _close(client) -> None:
    """Close the client quietly, even when its scheduler is gone."""
    with contextlib.suppress(Exception):
        client.close(timeout=CONNECT_S)


@contextlib.contextmanager
def quiet_dask(verbose: bool = False):
    """Keep Dask's log lines and warnings off the terminal while the ``with`` body runs (what
    matters to the user is said in our own words); ``verbose`` leaves them as Dask prints
    them."""
    if verbose:
        yield
        return
    saved = []
    for name in [n for n in logging.root.manager.loggerDict if n.split(".")[0] in DASK_LOGGERS]:
        logger = logging.getLogger(name)
        if logger.handlers or name in DASK_LOGGERS:
            saved.append((logger, logger.handlers[:], logger.propagate))
            # a logger without a handler would reach Python's last-resort stderr handler
            logger.handlers = [logging.NullHandler()]
            logger.propagate = False
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", module=DASK_MODULES)
            yield
    finally:
        for logger, handlers, propagate in saved:
            logger.handlers = handlers
            logger.propagate = propagate


# ------------------------------------------------------------------------------- the workers


def warm(client, job, console: Console | None, warm_one) -> None:
    """Compile (or load) the engine on every Dask worker before the games start, with the
    workers' state in the status line: a cold worker compiles for minutes, which a progress bar
    stuck at 0% would not explain. A worker lost meanwhile is simply not waited for."""
    from distributed import wait

    workers = list(client.nthreads())
    pending = {
        client.submit(
            warm_one,
            job,
            workers=[w],
            allow_other_workers=False,
            pure=False,
            key=f"lab-warm-{secrets.token_hex(4)}",
        ): w
        for w in workers
    }
    watch = Watch(client)
    what = engine_message().split(":")[0]
    ready = 0
    with live_status(console, f"{what} on the Dask workers: 0 of {len(workers)} ready") as say:
        while pending:
            done = _wait(wait, list(pending), watch)
            for f in done:
                pending.pop(f)
                if f.status == "finished":
                    ready += 1
                elif f.status == "error":
                    f.result()  # the worker's own error (a bug, or a worker without the lab)
            say(f"{what} on the Dask workers: {ready} of {len(workers)} ready")
            present = watch.check(set())
            for f, w in list(pending.items()):
                if w not in present:  # a task pinned to a lost worker would wait forever
                    pending.pop(f).cancel()


def play(client, todo: list, out: Path, play_one, note=None):
    """Receipts of the chunks as they finish (in any order), played on the cluster with at
    most four chunks per worker thread queued, so a stop leaves little to cancel. ``note``
    hears of lost workers."""
    from distributed import KilledWorker, wait

    target = str(Path(out).resolve())
    waiting = deque(todo)
    running: dict = {}  # future -> job
    watch = Watch(client, note)
    try:
        while waiting or running:
            while waiting and len(running) < 4 * max(watch.threads, 1):
                job = waiting[0]
                with watch.lost_if_gone():
                    running[
                        client.submit(
                            play_one,
                            job,
                            target,
                            pure=False,
                            key=f"lab-chunk-{job.id}-{secrets.token_hex(4)}",
                        )
                    ] = job
                waiting.popleft()
            for f in _wait(wait, list(running), watch):
                with watch.lost_if_gone():
                    if f.status == "error" and isinstance(f.exception(), KilledWorker):
                        raise ClusterLost(
                            f"chunk {running[f].id} was lost: every Dask worker that played it "
                            "died (a memory limit?)",
                            "check the workers' logs, then",
                        )
                    try:
                        receipt = f.result(timeout=CONNECT_S)
                    except TimeoutError:
                        continue  # its worker died before handing the receipt over: replayed
                del running[f]
                yield receipt
            watch.check({f.key for f in running})
    finally:
        with contextlib.suppress(Exception):
            if running and client.status == "running":
                client.cancel(list(running), force=True)
        watch.close()


def _wait(wait, futures: list, watch: Watch) -> list:
    """The futures done within a tick (none when the tick passes first)."""
    try:
        with watch.lost_if_gone():
            done, _ = wait(futures, timeout=TICK_S, return_when="FIRST_COMPLETED")
    except TimeoutError:
        return []
    return list(done)


class Watch:
    """The cluster seen from the client: worker losses (the scheduler's "remove-worker"
    events, which name the tasks it will replay), the number of workers, and the scheduler's
    connection."""

    def __init__(self, client, note=None):
        self.client = client
        self.address = client.scheduler.address
        self.note = note
        self.events: queue.SimpleQueue = queue.SimpleQueue()
        nthreads = client.nthreads()
        self.workers, self.threads = set(nthreads), sum(nthreads.values())
        self.polled = time.monotonic()
        self.none_since: float | None = None
        self.subscribed = False
        if note is not None:
            with contextlib.suppress(Exception):
                client.subscribe_topic("all", self._event)
                self.subscribed = True

    def _event(self, event) -> None:  # on the client's event loop: only queue it
        msg = event[1] if isinstance(event, tuple) and len(event) == 2 else None
        if isinstance(msg, dict) and msg.get("action") == "remove-worker":
            self.events.put(msg)

    @contextlib.contextmanager
    def lost_if_gone(self):
        """A chunk cancelled under us (FutureCancelledError), or any error while the client has
        lost its scheduler, is the cluster's loss; other errors are the chunk's own (an
        OSError writing it, a bug) and pass."""
        from concurrent.futures import CancelledError

        try:
            yield
        except ClusterLost:
            raise
        except CancelledError:
            raise self.lost() from None
        except Exception:
            if self.client.status != "running":
                raise self.lost() from None
            raise

    def lost(self) -> ClusterLost:
        """Why a chunk was cancelled under us: the scheduler's connection, or the cluster."""
        if self.client.status != "running":
            return ClusterLost(
                f"lost the connection to the Dask scheduler at {self.address}",
                "once the scheduler and its workers are back,",
            )
        return ClusterLost(
            f"the Dask cluster at {self.address} cancelled a chunk (restarted "
            "or shut down by someone else?)",
            "once the cluster is free,",
        )

    def check(self, mine: set) -> set:
        """Say what happened since the last check; raise ClusterLost when the run cannot go
        on. Returns the workers present."""
        while not self.events.empty():
            msg = self.events.get()
            replayed = {
                k
                for k in (*msg.get("processing-tasks", ()), *msg.get("lost-computed-tasks", ()))
                if k in mine
            }
            self._say(msg.get("worker", "?"), len(replayed))
        if self.client.status != "running":
            raise self.lost()
        if time.monotonic() - self.polled >= POLL_S:
            try:
                nthreads = self.client.nthreads()
            except Exception:
                raise self.lost() from None
            self.polled = time.monotonic()
            self.workers, self.threads = set(nthreads), sum(nthreads.values())
            if self.workers:
                self.none_since = None
            elif self.none_since is None:
                self.none_since = self.polled
            elif self.polled - self.none_since >= NO_WORKER_S:
                raise ClusterLost(
                    f"the Dask cluster at {self.address} has had no worker for {NO_WORKER_S:.0f} s",
                    f"start workers (`dask worker {self.address} --nthreads 1`), then",
                )
        return self.workers

    def _say(self, worker: str, replayed: int) -> None:
        self.workers.discard(worker)
        if self.note is None:
            return
        chunks = "its chunk" if replayed == 1 else f"its {replayed} chunks"
        if self.workers:
            what = (
                f"{chunks} {'is' if replayed == 1 else 'are'} being replayed — the records "
                "stay the same"
                if replayed
                else "it held no chunk of this run"
            )
        else:
            what = (
                f"no worker is left{f' to replay {chunks}' if replayed else ''}: the run "
                f"stops unless one joins within {NO_WORKER_S:.0f} s"
            )
        self.note(f"a Dask worker was lost ({worker}); {what}")

    def close(self) -> None:
        if self.subscribed:
            with contextlib.suppress(Exception):
                self.client.unsubscribe_topic("all")


def note_to(console: Console | None):
    """A note callable for ``play`` (None without a console)."""
    return None if console is None else (lambda m: show_note(console, m))
