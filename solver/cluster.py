"""The build as a Dask task graph: the cores of one machine, or the machines of a cluster.

Each unit of a build's plan (:func:`solver.build.plan_units`: a moving-phase pair or a
placement subspace) is one Dask task, which depends on the tasks of the units whose files
it reads, so the whole game (``phase="all"``) is one graph.  Tasks read and
write the same files as the in-process build, in a folder every worker sees: a task
whose file is built and intact returns at once, so a killed cluster build resumes; a
task whose worker dies is run again on another (Dask retries it), and the half-written
temporary file it leaves is never renamed into place, so it is never taken as built.

Each task asks for the memory its solve holds (:func:`solver.build.memory_needed`) as
the Dask resource ``memory``, in bytes, and each worker offers its own, so a worker never
takes on more than fits.  A task's compiled loops use its worker's threads (shared out
when the worker runs several tasks at once).
The plan for the large builds (standard whole game, Lasker, Morabaraba) is docs/scale.md.

Needs Dask (``pip install -e '.[cluster]'``)::

    with cluster.local(workers=2) as client:            # or cluster.connect("tcp://host:8786")
        reports = cluster.build("data", Rules(), client)
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import warnings
from concurrent.futures import CancelledError
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .kernels import kernels_for
from . import build as building
from . import dtz, storage
from .errors import ClusterError, InsufficientMemoryError, one_line
from .rules import Rules

try:
    import dask
    import psutil            # a dependency of distributed
    from dask.utils import parse_timedelta
    from distributed import Client, LocalCluster, WorkerPlugin, as_completed, get_worker
    from distributed.comm import parse_address
    from distributed.comm.addressing import parse_host_port
    from distributed.core import rpc
    from distributed.scheduler import KilledWorker
except ImportError:
    raise ClusterError("a cluster build needs Dask: pip install -e '.[cluster]'") from None

log = logging.getLogger("muehle.build")

#: The Dask resource a worker offers and a task asks for: bytes of memory.
MEMORY = "memory"


def wait_for_workers() -> float:
    """Seconds a build waits for a worker where the cluster has none (at the start) or
    none that can run what is left: 30, or ``MUEHLE_CLUSTER_WAIT`` (a cluster whose
    workers a batch system starts, or starts again, may need longer)."""
    text = os.environ.get("MUEHLE_CLUSTER_WAIT", "30")
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        raise ClusterError(f"MUEHLE_CLUSTER_WAIT={text!r} is no number of seconds (e.g. 30)")
    return seconds


# --- where the build runs ------------------------------------------------------------

@contextmanager
def local(workers: int, threads: int | None = None, memory: int | None = None,
          dashboard: str | None = ":8787") -> Iterator[Client]:
    """A client of a new LocalCluster of ``workers`` processes on this machine.

    ``threads`` per worker (default: the CPUs shared out), ``memory`` in bytes each
    worker offers (default: the available memory shared out); ``dashboard``: its address,
    None for none.  The cluster is shut down on leaving.
    """
    threads = threads or max(1, (os.cpu_count() or 1) // workers)
    memory = memory or psutil.virtual_memory().available // workers
    # memory_limit=0: the resource, not the nanny, keeps tasks within memory; a nanny
    # would kill a worker whose estimate was slightly off and the retry would fail alike.
    # silence_logs: a task's error reaches the client, which says it in one line (a
    # worker's own "Compute Failed" log would repeat it with a traceback first)
    with _quiet_tracker(), _workers_ignore_ctrl_c(), warnings.catch_warnings():
        # (only while they start) A dashboard port in use (another Dask's) is no fault:
        # Dask takes a free one, and the command prints the address it took.
        warnings.filterwarnings("ignore", r"Port \d+ is already in use", UserWarning)
        try:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True,
                                   memory_limit=0, resources={MEMORY: memory},
                                   dashboard_address=dashboard, silence_logs=logging.CRITICAL)
        except (RuntimeError, OSError, asyncio.TimeoutError) as error:
            # e.g. a worker process killed while it starts: Dask's "Nanny failed to start"
            reason = one_line(str(error.__cause__ or error) or type(error).__name__)
            raise ClusterError(f"the local cluster did not start: {reason}") from None
    with cluster, Client(cluster) as client:
        client.register_plugin(_IgnoreCtrlC())
        yield client


class _IgnoreCtrlC(WorkerPlugin):
    """SIGINT ignored in every worker, also in one its nanny starts anew after the first
    died (this process's SIGINT is its own again by then, see :func:`_workers_ignore_ctrl_c`)."""

    name = "muehle-ignore-ctrl-c"

    def setup(self, worker) -> None:
        import signal
        import threading
        if threading.current_thread() is threading.main_thread():   # (a worker's loop runs there)
            signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def _workers_ignore_ctrl_c() -> Iterator[None]:
    """SIGINT ignored while the worker processes start (a second or two), so that they
    keep ignoring it (Python leaves SIGINT as its parent set it): Ctrl-C in the terminal
    reaches every process of its group, and the workers would each print a
    KeyboardInterrupt traceback; this process stops them as it shuts the cluster down.
    A worker its nanny restarts later ignores it from :class:`_IgnoreCtrlC` on."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _quiet_tracker() -> Iterator[None]:
    """A worker stopped by its nanny leaves a semaphore that multiprocessing's resource
    tracker (a process started with the workers, in this environment) warns of in two
    lines at exit, after the build's one line; it is cleaned up all the same, so the
    warning is filtered out for the processes started meanwhile."""
    before = os.environ.get("PYTHONWARNINGS")
    quiet = "ignore::UserWarning:multiprocessing.resource_tracker"
    os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [before, quiet]))
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PYTHONWARNINGS", None)
        else:
            os.environ["PYTHONWARNINGS"] = before


@contextmanager
def connect(address: str) -> Iterator[Client]:
    """A client of the running Dask scheduler at ``address`` (``tcp://HOST:PORT``).

    Waits as long as Dask's ``distributed.comm.timeouts.connect`` (30 s unless set, e.g.
    by ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=5s``), then raises ClusterError; so
    does an address where something else answers.
    """
    check_scheduler(address)
    wait = dask.config.get("distributed.comm.timeouts.connect")
    with Client(address, timeout=wait, set_as_default=False) as client:
        yield client


def check_scheduler(address: str) -> None:
    """Raise ClusterError unless a Dask scheduler answers at ``address`` within Dask's
    connect timeout (a dry run asks this, as the build does before it starts)."""
    seconds = parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"))
    host, port, tls = _check_address(address)
    silent = ClusterError(f"the Dask scheduler at {address} does not answer (waited {seconds:g} s)")
    # First whether anything listens (a tls:// address without Dask's TLS settings fails
    # in the protocol before it connects, which read as "answers, but not as a scheduler").
    try:
        socket.create_connection((host, int(port)), timeout=seconds).close()
    except OSError:
        raise silent from None
    if tls and not dask.config.get("distributed.comm.tls.client.cert", None):
        raise ClusterError(f"{address}: a tls:// scheduler needs Dask's TLS settings for its client "
                           f"(distributed.comm.tls.*: a certificate and key), and none are set")
    # Ask who answers, within the timeout, before making a Client: a Client waits forever
    # on a peer that answers in another protocol.
    try:
        who = asyncio.run(asyncio.wait_for(_identity(address, seconds), seconds + 1))
    except (OSError, TimeoutError):
        raise silent from None
    except Exception as exc:
        raise ClusterError(f"{address} answers, but not as a Dask scheduler ({type(exc).__name__}); "
                           f"is it the scheduler's port?") from None
    if not isinstance(who, dict) or who.get("type") != "Scheduler":
        kind = who.get("type") if isinstance(who, dict) else type(who).__name__
        raise ClusterError(f"{address} is a Dask {kind}, not the scheduler")


def _check_address(address: str) -> tuple[str, int, bool]:
    """(host, port, whether tls) of a scheduler's ``address``: ``[tcp://|tls://]HOST:PORT``
    (Dask takes a bare HOST:PORT as tcp); ClusterError for anything else."""
    try:
        scheme, where = parse_address(address, strict=False)
        host, port = parse_host_port(where)
    except (ValueError, TypeError) as exc:
        raise ClusterError(f"{address!r} is no scheduler address ({exc}); give tcp://HOST:PORT") from None
    if scheme not in ("tcp", "tls"):
        raise ClusterError(f"{address!r}: a Dask scheduler listens on tcp:// or tls://, not {scheme}://; "
                           f"give tcp://HOST:PORT")
    if not host or not 0 < int(port) < 65536:
        raise ClusterError(f"{address!r} is no scheduler address (a host and a port 1-65535, "
                           f"e.g. tcp://10.0.0.1:8786)")
    return host, int(port), scheme == "tls"


async def _identity(address: str, seconds: float) -> dict:
    """What the Dask server at ``address`` says it is (``{"type": "Scheduler", ...}``)."""
    server = rpc(address, timeout=seconds)
    try:
        return await server.identity()
    finally:
        await server.close_rpc()


# --- the build --------------------------------------------------------------------------

def build(root: Path | str, rules: Rules, client: Client, *, phase: str = "all",
          max_total: int | None = None, pair: tuple[int, int] | None = None, verify: bool = True,
          progress: bool = True, timeout: float | None = None, quiet_limit: int | None = None) -> list:
    """Build (or resume) the planned units of ``phase`` on ``client``'s cluster; one
    report per file, in plan order, as :func:`solver.build.build` gives.  With
    ``quiet_limit``, the tables of the quiet-ply rule of that many plies instead, all of
    them (``phase`` aside), as :func:`solver.dtz.build` gives them: the same graph, each
    file read from the rule's files of what it leads into.

    Raises ClusterError when the workers cannot see the folder or keep dying, the task's
    own error (a DatabaseError) when a unit fails; ``timeout`` (seconds) bounds the wait.
    """
    # Workers find the folder by the same absolute path (a shared file system).
    root = Path(root).resolve()
    with building.locked_folder(root, rules):
        if quiet_limit is None:
            units = building.plan_units(rules, max_total, pair, phase)
            building.check_plan(root, rules, units)
        else:
            units = dtz.plan_units(rules, max_total, pair)
        prefix = "" if quiet_limit is None else f"dtz{quiet_limit}-"
        return run_graph(root, rules, client, units, run_unit, (verify, quiet_limit), prefix=prefix,
                         progress=progress, timeout=timeout)


def run_graph(root: Path, rules: Rules, client: Client, units: list[building.Unit], task,
              args: tuple = (), *, prefix: str = "", progress: bool = True,
              timeout: float | None = None) -> list:
    """Run ``units`` (a plan: every unit after the units named in its ``needs``) as a Dask
    task graph on ``client``'s cluster, each as ``task(str(root), rules, unit, *args,
    *reports of what it needs)`` (a function of a module the workers import, which
    returns the unit's reports), under the memory each unit asks; the reports in plan
    order.  The caller holds the folder's :class:`~solver.build.BuildLock`; ``prefix``
    tells the tasks' keys of one kind of file from another's.  Raises as :func:`build`."""
    from tqdm import tqdm

    check_workers(client, storage.rules_dir(root, rules))
    check_memory(client, units)
    build_id = secrets.token_hex(4)
    futures = {}
    for unit in units:
        needs = [futures[name] for name in unit.needs if name in futures]
        futures[unit.name] = client.submit(task, str(root), rules, unit, *args, *needs,
                                          key=f"{prefix}{unit.name}-{build_id}", pure=False,
                                          resources={MEMORY: unit.memory})
    unit_of = {future.key: unit for unit, future in zip(units, futures.values())}
    reports = {}
    overall = tqdm(total=sum(u.slots for u in units), unit="states", unit_scale=True,
                   desc="all units", disable=not progress, position=0, dynamic_ncols=True)
    try:
        for future in _finished(client, list(futures.values()), unit_of, timeout):
            try:
                report = future.result()
            except KilledWorker:
                raise ClusterError(f"{unit_of[future.key].name} was running on workers that died "
                                   f"{dask.config.get('distributed.scheduler.allowed-failures') + 1} "
                                   f"times (out of memory?); rerun to resume") from None
            except CancelledError:     # (not by this client: it cancels only on leaving)
                raise ClusterError(f"the Dask scheduler cancelled {unit_of[future.key].name} "
                                   f"(the connection to it was lost?); rerun to resume") from None
            reports[unit_of[future.key].name] = report
            for one in report:
                log.info("%s", one.summary())
            overall.update(unit_of[future.key].slots)
    except BaseException:
        try:
            client.cancel(list(futures.values()))   # what is still queued or running
        except Exception:           # noqa: BLE001 (a scheduler gone: nothing to cancel)
            pass
        raise
    finally:
        overall.close()
    return [one for unit in units for one in reports[unit.name]]


#: Seconds between looks at a cluster on which no unit finished: whether its workers
#: can still run what is left.
WATCH_EVERY = 5.0


def _finished(client: Client, futures: list, unit_of: dict, timeout: float | None) -> Iterator:
    """The futures as they finish.  Raises ClusterError where the scheduler is gone,
    where for :func:`wait_for_workers` seconds no worker could run a unit left (none
    left, or none offering its memory: Dask would wait for one forever), or after
    ``timeout`` seconds in all."""
    import time
    # (the loop named: as_completed would look for a default client, and a client of
    # --scheduler is none)
    finished = as_completed(futures, loop=client.loop)
    wait = wait_for_workers()
    start = time.monotonic()
    watched = stuck = start
    while not finished.is_empty():
        batch = finished.next_batch(block=False)
        if batch:
            yield from batch
            watched = stuck = time.monotonic()
            continue
        now = time.monotonic()
        if timeout is not None and now - start > timeout:
            raise ClusterError(f"the cluster build did not finish within {timeout} s; rerun to resume")
        if now - watched >= WATCH_EVERY:
            watched = now
            why = _why_stuck(client, [unit_of[f.key] for f in futures if not f.done()])
            if why is None:
                stuck = now
            elif now - stuck >= wait:
                raise ClusterError(f"{why} (waited {wait:g} s); rerun to resume")
        time.sleep(0.2)


def _why_stuck(client: Client, left: list[building.Unit]) -> str | None:
    """Why no worker of the cluster can run one of the units ``left``, or None."""
    try:
        try:
            workers = client.scheduler_info(n_workers=-1)["workers"]
        except TypeError:       # (a Dask before n_workers: it gives them all)
            workers = client.scheduler_info()["workers"]
    except Exception as exc:    # noqa: BLE001 (the client's own error of a lost scheduler)
        return f"the Dask scheduler {client.scheduler.address} is gone ({one_line(exc) or type(exc).__name__})"
    if not workers:
        return f"the Dask scheduler at {client.scheduler.address} has no workers left"
    largest = max(w.get("resources", {}).get(MEMORY, 0) for w in workers.values())
    unit = max(left, key=lambda u: u.memory, default=None)
    if unit is not None and unit.memory > largest:
        return (f"{unit.name} needs about {unit.memory / 2**30:.1f} GiB of memory and no worker left "
                f"offers it (the largest: {largest / 2**30:.1f} GiB)")
    try:
        busy = any(client.processing().values())
    except Exception:           # noqa: BLE001 (asked again at the next look)
        busy = True
    if unit is not None and not busy:
        # Dask looks again at a task no worker could take only when a worker joins, not
        # when one offers a resource later, as a worker that joins without one does
        # (its offer, _OfferMemory, comes just after): the rerun's offers come first.
        return (f"no worker has taken up {unit.name} (a worker that joined during the build "
                f"without --resources {MEMORY}=BYTES?)")
    return None


def run_unit(root: str, rules: Rules, unit: building.Unit, verify: bool, quiet_limit: int | None = None,
             *needs):
    """The task of one unit on a worker (``needs``: the reports of the units it reads,
    passed only to order the tasks): build it with the worker's threads, shared with the
    tasks the worker is running as this one starts (values never depend on threads);
    with ``quiet_limit``, its file of the tables of that quiet-ply rule.  Its reports, a
    file each (:func:`solver.build.run`)."""
    jobs = worker_jobs(root, rules)
    if quiet_limit is not None:
        return dtz.build_unit(Path(root), rules, quiet_limit, unit.key, jobs=jobs, verify=verify)
    return building.build_unit(Path(root), rules, unit, jobs=jobs, verify=verify)


def worker_jobs(root: str, rules: Rules) -> int:
    """In a task on a worker: the threads its compiled loops may use (the worker's,
    shared with the tasks it runs as this one starts; values never depend on threads).
    Raises ClusterError where the worker cannot see the database folder."""
    worker = get_worker()
    folder = storage.rules_dir(root, rules)
    if not folder.is_dir():
        # (a worker that joined after the start's check, where the folder is not mounted:
        # the files it needs would be "not built", which is not what is wrong)
        raise ClusterError(f"worker {worker.address} cannot see the database folder {folder}; "
                           f"run the workers where it is mounted at the same path")
    state = worker.state
    return max(1, state.nthreads // max(1, state.executing_count))


# --- checks before the build ---------------------------------------------------------------

def check_workers(client: Client, folder: Path) -> None:
    """Raise ClusterError unless the cluster has workers, each runs this index scheme and
    sees ``folder``: each reads a token file the client writes there."""
    wait = wait_for_workers()
    try:
        client.wait_for_workers(1, timeout=wait)
    except TimeoutError:
        raise ClusterError(f"the Dask scheduler at {client.scheduler.address} has no workers "
                           f"(waited {wait:g} s)") from None
    secret = secrets.token_hex(16)
    token = folder / f".cluster-token-{secret[:8]}"
    token.write_text(secret)
    try:
        seen = client.run(_read_token, str(token))
    except Exception as exc:   # a worker without the package cannot even unpickle the check
        raise ClusterError(f"the workers cannot run the solver: {type(exc).__name__}: {exc}") from None
    finally:
        token.unlink(missing_ok=True)
    blind = [address for address, (text, _) in seen.items() if text != secret]
    if blind:
        raise ClusterError(f"{len(blind)} of {len(seen)} worker(s) cannot see the database folder "
                           f"{folder} (first: {blind[0]}); run the workers where it is mounted "
                           f"at the same path")
    foreign = [address for address, (_, scheme) in seen.items() if scheme != kernels_for().INDEX_SCHEME]
    if foreign:
        raise ClusterError(f"worker {foreign[0]} runs index scheme {seen[foreign[0]][1]!r}, "
                           f"this client {kernels_for().INDEX_SCHEME!r}: install the same solver there")


def _read_token(path: str) -> tuple[str | None, str]:
    """On a worker: the token file's text (None when it cannot be read), and the index scheme."""
    try:
        text = Path(path).read_text()
    except OSError:
        text = None
    return text, kernels_for().INDEX_SCHEME


def check_memory(client: Client, units: list[building.Unit]) -> None:
    """Give workers that declare no ``memory`` resource their Dask memory limit (or the
    available memory), those that join later too (:class:`_OfferMemory`); raise
    InsufficientMemoryError if a unit needs more than any offers (Dask would wait for
    such a worker forever)."""
    client.register_plugin(_OfferMemory())
    offers = client.run(_offered)
    largest = max(offers.values(), default=0)
    unit = max(units, key=lambda u: u.memory, default=None)
    if unit is not None and unit.memory > largest:
        raise InsufficientMemoryError(
            f"{unit.name} needs about {unit.memory / 2**30:.1f} GiB of memory, the largest "
            f"worker offers {largest / 2**30:.1f} GiB (start workers with more memory, or "
            f"with --resources {MEMORY}=BYTES)", unit.memory, largest)


class _OfferMemory(WorkerPlugin):
    """A worker that declares no ``memory`` resource offers its Dask memory limit (or the
    available memory): the workers there as a build starts and those that join later (a
    worker started again, one added to the cluster), which could otherwise run no task."""

    name = "muehle-offer-memory"

    async def setup(self, worker) -> None:
        if worker.state.total_resources.get(MEMORY) is None:
            offered = worker.memory_manager.memory_limit or psutil.virtual_memory().available
            await worker.set_resources(**{MEMORY: offered})


def _offered(dask_worker) -> float:
    """On a worker: the memory it offers."""
    return dask_worker.state.total_resources.get(MEMORY, 0)
