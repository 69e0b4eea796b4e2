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
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .kernels import kernels_for
from . import build as building
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
#: Seconds to wait for a first worker of a scheduler that has none.
WAIT_FOR_WORKERS = 30.0


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
    wait = dask.config.get("distributed.comm.timeouts.connect")
    seconds = parse_timedelta(wait)
    try:
        parse_host_port(parse_address(address)[1])
    except ValueError as exc:
        raise ClusterError(f"{address!r} is no scheduler address ({exc}); give tcp://HOST:PORT") from None
    # Ask who answers, within the timeout, before making a Client: a Client waits forever
    # on a peer that answers in another protocol.
    try:
        who = asyncio.run(asyncio.wait_for(_identity(address, seconds), seconds + 1))
    except (OSError, TimeoutError):
        raise ClusterError(f"the Dask scheduler at {address} does not answer (waited {wait})") from None
    except Exception as exc:
        raise ClusterError(f"{address} answers, but not as a Dask scheduler ({type(exc).__name__}); "
                           f"is it the scheduler's port?") from None
    if not isinstance(who, dict) or who.get("type") != "Scheduler":
        kind = who.get("type") if isinstance(who, dict) else type(who).__name__
        raise ClusterError(f"{address} is a Dask {kind}, not the scheduler")
    with Client(address, timeout=wait, set_as_default=False) as client:
        yield client


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
          progress: bool = True, timeout: float | None = None) -> list:
    """Build (or resume) the planned units of ``phase`` on ``client``'s cluster; one
    report per unit, in plan order, as :func:`solver.build.build` gives.

    Raises ClusterError when the workers cannot see the folder or keep dying, the task's
    own error (a DatabaseError) when a unit fails; ``timeout`` (seconds) bounds the wait.
    """
    from tqdm import tqdm

    # Workers find the folder by the same absolute path (a shared file system).
    root = Path(root).resolve()
    folder = building.prepare_folder(root, rules)
    with building.BuildLock(folder):
        units = building.plan_units(rules, max_total, pair, phase)
        building.check_plan(root, rules, units)
        check_workers(client, folder)
        check_memory(client, units)
        build_id = secrets.token_hex(4)
        futures = {}
        for unit in units:
            needs = [futures[key] for key in unit.needs if key in futures]
            futures[unit.key] = client.submit(run_unit, str(root), rules, unit, verify, *needs,
                                              key=f"{unit.name}-{build_id}", pure=False,
                                              resources={MEMORY: unit.memory})
        unit_of = {future.key: unit for unit, future in zip(units, futures.values())}
        reports = {}
        overall = tqdm(total=sum(u.slots for u in units), unit="states", unit_scale=True,
                       desc="all units", disable=not progress, position=0, dynamic_ncols=True)
        try:
            for future in as_completed(list(futures.values()), timeout=timeout):
                try:
                    report = future.result()
                except KilledWorker:
                    raise ClusterError(f"{unit_of[future.key].name} was running on workers that died "
                                       f"{dask.config.get('distributed.scheduler.allowed-failures') + 1} "
                                       f"times (out of memory?); rerun to resume") from None
                reports[unit_of[future.key].key] = report
                log.info("%s", report.summary())
                overall.update(report.slots)
        except BaseException as exc:
            client.cancel(list(futures.values()))   # what is still queued or running
            if isinstance(exc, TimeoutError):
                raise ClusterError(f"the cluster build did not finish within {timeout} s; "
                                   f"rerun to resume") from None
            raise
        finally:
            overall.close()
    return [reports[unit.key] for unit in units]


def run_unit(root: str, rules: Rules, unit: building.Unit, verify: bool, *needs):
    """The task of one unit on a worker (``needs``: the reports of the units it reads,
    passed only to order the tasks): build it with the worker's threads, shared with the
    tasks the worker is running as this one starts (values never depend on threads)."""
    state = get_worker().state
    jobs = max(1, state.nthreads // max(1, state.executing_count))
    return building.build_unit(Path(root), rules, unit, jobs=jobs, verify=verify)


# --- checks before the build ---------------------------------------------------------------

def check_workers(client: Client, folder: Path) -> None:
    """Raise ClusterError unless the cluster has workers, each runs this index scheme and
    sees ``folder``: each reads a token file the client writes there."""
    try:
        client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS)
    except TimeoutError:
        raise ClusterError(f"the Dask scheduler at {client.scheduler.address} has no workers "
                           f"(waited {WAIT_FOR_WORKERS:.0f} s)") from None
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
    available memory); raise InsufficientMemoryError if a unit needs more than any offers
    (Dask would wait for such a worker forever)."""
    offers = client.run(_offer_memory)
    largest = max(offers.values(), default=0)
    for unit in units:
        if unit.memory > largest:
            raise InsufficientMemoryError(
                f"{unit.name} needs about {unit.memory / 2**30:.1f} GiB of memory, the largest "
                f"worker offers {largest / 2**30:.1f} GiB (fewer workers, or start them with "
                f"--resources {MEMORY}=BYTES)", unit.memory, largest)


async def _offer_memory(dask_worker) -> float:
    """On a worker: the memory it offers, set from its memory limit if it declared none."""
    offered = dask_worker.state.total_resources.get(MEMORY)
    if offered is None:
        offered = dask_worker.memory_manager.memory_limit or psutil.virtual_memory().available
        await dask_worker.set_resources(**{MEMORY: offered})
    return offered
