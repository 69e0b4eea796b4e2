"""The build as a Dask task graph (solver.cluster) on a LocalCluster of two worker
processes: the same bits as the in-process build, a worker killed in the middle of
writing a file, resume, and the faults of a cluster reported in one line."""

from __future__ import annotations

import re
import os
import socket
import subprocess
import sys
import threading

import pytest
from click.testing import CliRunner

# Without Dask (installed by the '[test]' extra, as CI does) these tests are skipped with
# the reason, not the whole collection failed.
pytest.importorskip("distributed", reason="the cluster build needs Dask: pip install -e '.[cluster]'")

from solver.commands import explained
from solver import build as building
from solver import cluster, placement, storage
from solver.cli import main
from solver.errors import ClusterError, InsufficientMemoryError, MissingSubspaceError
from solver.index import Pair, Subspace
from solver.rules import Rules

STANDARD = Rules()
MAX_TOTAL = 8                 # pairs 3-3, 3-4, 3-5, 4-4: seconds
TIMEOUT = 300                 # a cluster build in these tests fails rather than hangs


def checksums(root, rules=STANDARD, max_total=MAX_TOTAL, phase="moving") -> dict[str, str]:
    """SHA-256 of the values of every subspace of every file (pairs, placement subspaces)
    built under ``root``, computed from the data."""
    sums = {}
    for unit in building.plan_units(rules, max_total, phase=phase):
        path = storage.file_of(root, rules, Subspace(*unit.key))
        for sub in unit.key.subspaces if isinstance(unit.key, Pair) else [unit.key]:
            sums[sub.name] = storage.sha256_of(storage.read_subspace(
                path, rules, sub.m, sub.o, verify=True, own_hand=sub.own_hand, opp_hand=sub.opp_hand))
    return sums


def temporaries(root, rules=STANDARD) -> list:
    return sorted(storage.rules_dir(root, rules).glob(".pair-*.tmp-*"))


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, str]:
    """Checksums of the in-process build of the pairs up to MAX_TOTAL stones."""
    root = tmp_path_factory.mktemp("in-process")
    building.build(root, STANDARD, max_total=MAX_TOTAL, phase="moving", verify=False, progress=False)
    return checksums(root)


@pytest.fixture(scope="module")
def client():
    """Two worker processes of one thread each; shut down after the module's tests."""
    with cluster.local(2, threads=1, dashboard=":0") as client:
        yield client


def test_a_worker_killed_while_writing_a_file_changes_no_bit(client, reference, tmp_path):
    """The first attempt of pair 4-4 kills its worker (os._exit) once its temporary file is
    written, before it is re-read and renamed; the task is retried on a worker, and the files
    are the in-process build's."""
    folder = storage.rules_dir(tmp_path, STANDARD)
    marker = tmp_path / "killed"

    def kill_first_write_of_4_4():
        # Runs in each worker: the first worker to write pair-4-4.h5 dies in the middle.
        import solver.storage as st
        crash_point = st._crash_point

        def dying_crash_point(point, path):
            if path.name == "pair-4-4.h5" and point == "temporary-complete" and not marker.exists():
                marker.write_text("\n".join(p.name for p in folder.glob(".pair-4-4.h5.tmp-*")))
                os._exit(1)
            crash_point(point, path)
        st._crash_point = dying_crash_point

    client.run(kill_first_write_of_4_4)
    reports = cluster.build(tmp_path, STANDARD, client, phase="moving", max_total=MAX_TOTAL, progress=False,
                            timeout=TIMEOUT)
    assert [r.pair for r in reports] == [u.key for u in building.plan_units(STANDARD, MAX_TOTAL)]
    assert not any(r.skipped for r in reports)
    assert marker.read_text().startswith(".pair-4-4.h5.tmp-"), "the worker did not die mid-write"
    assert checksums(tmp_path) == reference
    assert temporaries(tmp_path) == []          # the dead worker's half file was removed

    # Resume: everything intact is skipped; a damaged file is rebuilt, to the same bits.
    again = cluster.build(tmp_path, STANDARD, client, phase="moving", max_total=MAX_TOTAL, progress=False,
                          timeout=TIMEOUT)
    assert all(r.skipped for r in again)
    path = storage.pair_path(tmp_path, STANDARD, (3, 4))
    data = bytearray(path.read_bytes())
    data[len(data) // 2: len(data) // 2 + 64] = bytes(64)
    path.write_bytes(bytes(data))
    assert not building.is_built(tmp_path, STANDARD, (3, 4))
    third = cluster.build(tmp_path, STANDARD, client, phase="moving", max_total=MAX_TOTAL, progress=False,
                          timeout=TIMEOUT)
    assert [r.pair for r in third if not r.skipped] == [(3, 4)]
    assert checksums(tmp_path) == reference


def test_the_whole_game_as_one_graph_gives_the_same_bits(client, tmp_path):
    """A small game's whole game (moving pairs and placement subspaces, one task graph)
    on the cluster: every file's values are the in-process build's, bit for bit."""
    four = Rules(stones=4)
    units = building.plan_units(four, phase="all")
    placed = [u for u in units if not isinstance(u.key, Pair)]
    assert placed and placed[-1].key == Subspace(0, 0, 4, 4)
    # A placement unit needs its children's units: a pair, or a placement subspace.
    assert placed[-1].needs == ("place-0-1+4-3",)
    assert {n.split("-")[0] for u in placed for n in u.needs} == {"pair", "place"}
    in_process = tmp_path / "in-process"
    building.build(in_process, four, phase="all", verify=False, progress=False)
    reports = cluster.build(tmp_path / "cluster", four, client, phase="all", verify=False,
                            progress=False, timeout=TIMEOUT)
    assert [getattr(r, "pair", None) or r.subspace for r in reports] == [u.key for u in units]
    assert not any(r.skipped for r in reports)
    assert checksums(tmp_path / "cluster", four, None, "all") == checksums(in_process, four, None, "all")
    again = cluster.build(tmp_path / "cluster", four, client, phase="placement", progress=False,
                          timeout=TIMEOUT)
    assert len(again) == len(placed) and all(r.skipped for r in again)


@pytest.mark.parametrize("name", ["standard-s4", "six-mens-mixed-s3"])
def test_the_rules_tables_on_the_cluster_give_the_same_bits(client, tmp_path, name):
    """The tables of the quiet-ply rule (moving pairs and placement subspaces; under
    mixed placement cycles of two subspaces solved in rounds, a task each writing two
    files) as one task graph on the cluster: every file's values are the in-process
    build's, bit for bit, a report a file; a rerun finds them all built."""
    from solver import dtz

    rules = Rules.from_name(name)
    in_process = tmp_path / "in-process"
    building.build(in_process, rules, phase="all", verify=False, progress=False)
    dtz.build(in_process, rules, 50, progress=False)
    building.build(tmp_path / "cluster", rules, phase="all", verify=False, progress=False)
    reports = cluster.build(tmp_path / "cluster", rules, client, progress=False, timeout=TIMEOUT, quiet_limit=50)
    pairs, subs = dtz.plan(rules)
    assert [r.key for r in reports] == pairs + subs and not any(r.skipped for r in reports)
    assert len(list(storage.rules_dir(tmp_path / "cluster", rules).glob("dtz50-place-*.h5"))) == len(subs)
    for key in pairs + subs:
        for sub in key.subspaces if isinstance(key, Pair) else [key]:
            a, b = (storage.read_subspace(storage.rule_path(root, rules, key, 50), rules, sub.m, sub.o,
                                          own_hand=sub.own_hand, opp_hand=sub.opp_hand, quiet_limit=50)
                    for root in (tmp_path / "cluster", in_process))
            assert storage.sha256_of(a) == storage.sha256_of(b), sub
    again = cluster.build(tmp_path / "cluster", rules, client, progress=False, timeout=TIMEOUT, quiet_limit=50)
    assert len(again) == len(reports) and all(r.skipped for r in again)


@pytest.mark.parametrize("rule", ["ceylonese", pytest.param("ceylonese-no-extra", marks=pytest.mark.slow)])
def test_ceylonese_mills_tables_on_the_cluster_give_the_same_bits(client, tmp_path, rule):
    """Ceylonese mill's files (its moving pairs, with the extra move, then its placement
    subspaces, each after the files it reads) as one task graph: every file's values
    are the in-process build's, bit for bit; a rerun finds them all built.  Without the
    extra move the plain moving pairs are read, and refused missing before any work."""
    from solver import ceylonese_tables
    from solver.ceylonese import CeylonRule

    six, reading = Rules.from_name("six-mens-s4"), CeylonRule.from_name(rule)
    units = ceylonese_tables.plan_units(six, reading)
    assert [u.key for u in units] == ceylonese_tables.files(six, reading)
    assert all(u.needs or u.key == units[0].key or not reading.extra_move for u in units)
    in_process, on_cluster = tmp_path / "in-process", tmp_path / "cluster"
    if not reading.extra_move:
        with pytest.raises(MissingSubspaceError, match="needs the moving pairs"):
            ceylonese_tables.build(on_cluster, six, reading, client=client, timeout=TIMEOUT)
        assert not list(storage.rules_dir(on_cluster, six).glob("ceylonese*"))
        for root in (in_process, on_cluster):
            building.build(root, six, phase="moving", verify=False, progress=False)
    ceylonese_tables.build(in_process, six, reading)
    reports = ceylonese_tables.build(on_cluster, six, reading, client=client, timeout=TIMEOUT)
    assert len(reports) == len(units) and not any(r.skipped for r in reports)
    for sub in ceylonese_tables.planned(six, reading):
        a, b = (ceylonese_tables.read(root, six, sub, reading, verify=True) for root in (on_cluster, in_process))
        assert storage.sha256_of(a) == storage.sha256_of(b), sub
    again = ceylonese_tables.build(on_cluster, six, reading, client=client, timeout=TIMEOUT)
    assert all(r.skipped for r in again)


@pytest.mark.parametrize("dice", ["triple", pytest.param("sum14-no-take", marks=pytest.mark.slow)])
def test_dice_mills_tables_on_the_cluster_give_the_same_bits(client, tmp_path, dice):
    """Dice mill's placement phase (a file a subspace, each read by the files above it:
    up to three children, two stones taken by a replacement that closes a mill) as one
    task graph: every file's values are the in-process build's, bit for bit, the
    cluster's tasks ordered by the graph alone (its units need their placement
    children's); a rerun finds them all built; the moving phase missing is refused
    before any work, as here."""
    from solver import dice_tables
    from solver.dice import DiceRule

    # Five Men's Morris up to 8 stones on board and in hand: two stones taken leave 3
    five, rule, most = Rules.from_name("five-mens"), DiceRule.from_name(dice), 8
    units = dice_tables.plan_units(five, most)
    assert [u.key for u in units] == dice_tables.plan(five, most)
    assert max(len(u.reads) for u in units) == 3 and max(len(u.needs) for u in units) == 3
    assert all(n.startswith("place-") for u in units for n in u.needs)
    with pytest.raises(MissingSubspaceError, match="dice mill's placement phase needs the moving subspaces"):
        dice_tables.build(tmp_path / "cluster", five, rule, max_total=most, client=client, timeout=TIMEOUT)
    assert not list(storage.rules_dir(tmp_path / "cluster", five).glob("dice-*"))
    in_process = tmp_path / "in-process"
    for root in (in_process, tmp_path / "cluster"):
        building.build(root, five, phase="moving", max_total=most, verify=False, progress=False)
    dice_tables.build(in_process, five, rule, max_total=most)
    reports = dice_tables.build(tmp_path / "cluster", five, rule, max_total=most, client=client, timeout=TIMEOUT)
    assert [r.subspace for r in reports] == [u.key for u in units] and not any(r.skipped for r in reports)
    for sub in dice_tables.plan(five, most):
        a, b = (dice_tables.read(root, five, rule, sub, verify=True) for root in (tmp_path / "cluster", in_process))
        assert storage.sha256_of(a) == storage.sha256_of(b), sub
    again = dice_tables.build(tmp_path / "cluster", five, rule, max_total=most, client=client, timeout=TIMEOUT)
    assert all(r.skipped for r in again)


def test_the_placement_phase_without_the_moving_phase_is_refused_before_any_work(client, tmp_path):
    # every missing pair named by count, and one command that builds them all
    with pytest.raises(MissingSubspaceError) as info:
        cluster.build(tmp_path, Rules(stones=4), client, phase="placement", progress=False,
                      timeout=TIMEOUT)
    assert re.fullmatch(r"place-\S+ needs pair-\S+\.h5 and 2 more, not built .*"
                        r"\(build it with: muehle build --db \S+ --stones 4 --phase moving\)", explained(info.value))
    assert not list(storage.rules_dir(tmp_path, Rules(stones=4)).glob("*place-*"))


def test_workers_that_cannot_see_the_folder_are_named(client, tmp_path):
    def blind():
        import solver.cluster as c
        c._read_token_before, c._read_token = c._read_token, lambda path: (None, c.kernels_for(c.Rules().board).INDEX_SCHEME)

    def restore():
        import solver.cluster as c
        c._read_token = c._read_token_before

    client.run(blind)
    try:
        with pytest.raises(ClusterError, match="2 of 2 worker.s. cannot see the database folder"):
            cluster.build(tmp_path, STANDARD, client, max_total=6, progress=False, timeout=TIMEOUT)
    finally:
        client.run(restore)
    # no work, no token left: the folder the build made goes with its lock
    assert not storage.rules_dir(tmp_path, STANDARD).exists()
    storage.rules_dir(tmp_path, STANDARD).mkdir()
    cluster.check_workers(client, storage.rules_dir(tmp_path, STANDARD))


def test_a_unit_larger_than_every_worker_is_refused_before_any_work(client):
    offered = max(client.run(lambda dask_worker: dask_worker.state.total_resources[cluster.MEMORY]).values())
    big = building.Unit("moving", ((9, 9, 0, 0),), 1, int(offered) + 1, ("pair-8-9",), ((8, 9, 0, 0),))
    with pytest.raises(InsufficientMemoryError, match="pair-9-9 needs about .* the largest worker offers"):
        cluster.check_memory(client, [big])


def one_line_error(result, fragment: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("muehle: error: ") and fragment in lines[0], result.stderr


def test_a_scheduler_that_does_not_answer_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", "2s")
    import dask
    dask.config.refresh()

    def build_on(address: str):
        return CliRunner().invoke(main, ["build", "--db", str(tmp_path), "--max-total", "6",
                                         "--scheduler", address])

    try:
        with socket.socket() as s:        # a port nothing listens on
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        one_line_error(build_on(f"tcp://127.0.0.1:{port}"),
                       f"the Dask scheduler at tcp://127.0.0.1:{port} does not answer (waited 2 s)")
        one_line_error(build_on(f"tls://127.0.0.1:{port}"),
                       f"the Dask scheduler at tls://127.0.0.1:{port} does not answer (waited 2 s)")
        assert not (tmp_path / "standard").exists()       # no folder made for a build that cannot run
        with socket.socket() as server:   # something listens, but this client has no TLS settings
            server.bind(("127.0.0.1", 0))
            server.listen()
            one_line_error(build_on(f"tls://127.0.0.1:{server.getsockname()[1]}"),
                           "a tls:// scheduler needs Dask's TLS settings")
        with socket.socket() as server:   # a port where something else answers
            server.bind(("127.0.0.1", 0))
            server.listen()
            port = server.getsockname()[1]
            thread = threading.Thread(target=lambda: server.accept()[0].sendall(b"HTTP/1.1 200 OK\r\n" * 64),
                                      daemon=True)
            thread.start()
            result = build_on(f"tcp://127.0.0.1:{port}")
            one_line_error(result, f"tcp://127.0.0.1:{port}")
        one_line_error(build_on("localhost"), "is no scheduler address")
    finally:
        monkeypatch.delenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT")
        dask.config.refresh()
    one_line_error(CliRunner().invoke(main, ["build", "--workers", "2", "--scheduler", "tcp://x:1"]),
                   "not both")


def test_build_command_on_a_running_scheduler(client, tmp_path):
    """``muehle build --scheduler ADDRESS``: the files the in-process build writes, resumed."""
    three = Rules(stones=3)
    command = ["build", "--db", str(tmp_path / "cl"), "--stones", "3", "--quiet",
               "--scheduler", client.scheduler.address]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 0, result.output
    assert "Dask dashboard: http://" in result.stderr and "1 pair(s) built" in result.stdout
    assert "0 pair(s) built, 1 already there" in CliRunner().invoke(main, command).stdout
    worker = next(iter(client.scheduler_info()["workers"]))
    one_line_error(CliRunner().invoke(main, command[:-1] + [worker]), "is a Dask Worker, not the scheduler")
    building.build(tmp_path / "ip", three, phase="moving", progress=False)
    assert (storage.read_subspace(storage.pair_path(tmp_path / "cl", three, (3, 3)), three, 3, 3, verify=True)
            == storage.read_subspace(storage.pair_path(tmp_path / "ip", three, (3, 3)), three, 3, 3)).all()


def test_build_command_with_workers(tmp_path):
    """``muehle build --workers N`` starts and stops a LocalCluster of this machine and
    builds the whole game on it; where another program holds the dashboard's usual port
    (8787, held here for the test), Dask takes another without a warning."""
    import socket
    command = [sys.executable, "-m", "solver", "build", "--db", str(tmp_path), "--stones", "3",
               "--workers", "1", "--jobs", "1", "--quiet"]
    with socket.socket() as holder:
        try:
            holder.bind(("", 8787))
            holder.listen()
        except OSError:
            pass                                # held already, by another program
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0 and noise(done.stderr) == [], done.stderr
    assert "Dask dashboard: http://" in done.stderr and "1 pair(s) built" in done.stdout
    # the tables of the 50-ply rule after the plain ones, on the same cluster
    assert "1 pair(s) built under the 50-ply rule" in done.stdout
    assert storage.rule_path(tmp_path, Rules(stones=3), Pair(3, 3), 50).exists()
    assert building.is_built(tmp_path, Rules(stones=3), (3, 3))
    # The placement phase ran in the same graph (no in-process run after it).
    subs = placement.plan(Rules(stones=3))
    assert f"{len(subs)} placement subspace(s) built" in done.stdout
    assert all(building.is_stored(tmp_path, Rules(stones=3), s) for s in subs)
    # dice mill's tables on a cluster too (refused before: "not on a cluster yet")
    dice = subprocess.run(command[:-1] + ["--phase", "dice", "--dice", "double"], capture_output=True,
                          text=True, timeout=TIMEOUT)
    assert dice.returncode == 0 and noise(dice.stderr) == [], dice.stderr
    assert "Dask dashboard: http://" in dice.stderr        # (on a cluster, not here)
    assert f"{len(subs)} placement subspace(s) built under dice rule double, 0 already there" in dice.stdout
    check = CliRunner().invoke(main, ["check", "--db", str(tmp_path), "--stones", "3", "--phase", "dice",
                                      "--dice", "double"])
    assert check.exit_code == 0 and check.output.startswith(f"ok: {len(subs)} placement subspace(s)")


def cluster_build(tmp_path, limit: str = "", env: dict | None = None) -> subprocess.Popen:
    """``muehle build --workers 2`` of the moving phase in a process group of its own (as
    a terminal's job), with ``ulimit`` ``limit`` if given.  (The moving phase alone: the
    faults these builds meet are the cluster's, not a phase's, and the placement and rule
    tables on the cluster have tests of their own, above.)"""
    command = (f"{limit} exec {sys.executable} -m solver build --db {tmp_path / 'db'} "
               f"--max-total {MAX_TOTAL} --phase moving --workers 2 --quiet")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MUEHLE_HOLD_")}
    return subprocess.Popen(["bash", "-c", command], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True,
                            env={**clean, "DASK_DISTRIBUTED__DASHBOARD__ENABLED": "False", **(env or {})})


def held_cluster_build(tmp_path) -> tuple[subprocess.Popen, "os.PathLike"]:
    """cluster_build whose worker that writes pair 4-4, the last of the plan's pairs, stops
    there for good (solver.storage's hold hook), and the file that says it has: the build
    cannot finish before a test interrupts it."""
    held = tmp_path / "held"
    return cluster_build(tmp_path, env={"MUEHLE_HOLD_AT": "temporary-complete:pair-4-4.h5",
                                        "MUEHLE_HOLD_FLAG": str(held)}), held


def wait_until(build: subprocess.Popen, condition, step: float = 0.05):
    """``condition()``'s first true value, while the build runs (within TIMEOUT)."""
    import time
    deadline = time.monotonic() + TIMEOUT
    while not (value := condition()):
        assert time.monotonic() < deadline and build.poll() is None, build.communicate()
        time.sleep(step)
    return value


def ctrl_c(build: subprocess.Popen) -> None:
    """Ctrl-C to the build's process group: it ends with one line and status 130, as a
    shell reports a program stopped by SIGINT."""
    import signal
    os.killpg(build.pid, signal.SIGINT)
    out, err = build.communicate(timeout=TIMEOUT)
    assert build.returncode == 130, err[-2000:]
    assert err.rstrip().endswith("muehle: interrupted (the same command resumes the build)"), err[-2000:]
    assert noise(err) == [], err[-2000:]


def noise(stderr: str) -> list[str]:
    """The lines of stderr that are neither the build's log nor its one-line outcome."""
    import re
    return [line for line in stderr.splitlines()
            if line and not re.match(r"\d\d:\d\d:\d\d |Dask dashboard: |muehle: error: |muehle: interrupted", line)
            ]


def test_ctrl_c_of_a_cluster_build_is_one_line_and_the_rerun_finishes(tmp_path):
    """Ctrl-C reaches every process of the terminal's group: the workers ignore it (no
    traceback from each) and the build ends with one line.  A worker is held writing
    the last pair (storage's hold hook), so Ctrl-C lands while the build is at work."""
    build, held = held_cluster_build(tmp_path)
    wait_until(build, held.exists)
    assert build.poll() is None
    ctrl_c(build)
    rerun = cluster_build(tmp_path)
    out, err = rerun.communicate(timeout=TIMEOUT)
    assert rerun.returncode == 0 and noise(err) == [], err[-2000:]
    assert CliRunner().invoke(main, ["check", "--db", str(tmp_path / "db"), "--max-total", str(MAX_TOTAL),
                                     "--phase", "moving", "--quiet"]).exit_code == 0


def workers_of(build: subprocess.Popen) -> list:
    """The worker processes of a cluster build (its nannies' children, started by
    multiprocessing's spawn; not its resource tracker)."""
    import psutil
    try:
        return [child for child in psutil.Process(build.pid).children()
                if "spawn_main" in " ".join(child.cmdline())]
    except psutil.NoSuchProcess:
        return []


def ignores_sigint(process) -> bool:
    """Whether the process ignores SIGINT (the SigIgn mask of /proc/PID/status)."""
    import signal
    status = open(f"/proc/{process.pid}/status").read()
    mask = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:")), 16)
    return bool(mask & (1 << (signal.SIGINT - 1)))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_worker_started_again_by_its_nanny_ignores_ctrl_c_too(tmp_path):
    """A worker that died (killed) is started again by its nanny, from this process whose
    SIGINT is its own again: it ignores Ctrl-C as the first ones do, so Ctrl-C still ends
    the build with one line, not with that worker's KeyboardInterrupt traceback."""
    build, held = held_cluster_build(tmp_path)
    wait_until(build, held.exists)                  # the cluster is up, at work, and held
    first = workers_of(build)
    assert len(first) == 2 and all(map(ignores_sigint, first))
    first[0].kill()
    old = {p.pid for p in first}
    wait_until(build, lambda: any(w.pid not in old and ignores_sigint(w) for w in workers_of(build)))
    ctrl_c(build)


def test_a_worker_killed_while_the_cluster_starts_is_one_line(tmp_path):
    """Dask raises "Nanny failed to start" (a traceback) where a worker process dies before
    it has started: the build says so in one line, and a rerun builds."""
    build = cluster_build(tmp_path)
    wait_until(build, lambda: workers_of(build), 0.01)[0].kill()
    out, err = build.communicate(timeout=TIMEOUT)
    assert build.returncode == 2 and noise(err) == [], err[-2000:]
    assert err.splitlines()[-1] == ("muehle: error: the local cluster did not start: "
                                    "Nanny failed to start worker process"), err[-2000:]
    rerun = cluster_build(tmp_path)
    out, err = rerun.communicate(timeout=TIMEOUT)
    assert rerun.returncode == 0 and noise(err) == [], err[-2000:]


def test_a_write_that_fails_on_a_worker_is_one_line(tmp_path):
    """A file-size limit (as a full disk) on the workers: the task's error, one line,
    and not the worker's 'Compute Failed' log with its traceback first."""
    build = cluster_build(tmp_path, "ulimit -f 32;")      # KiB: the smallest pair file, 3-3, has 66
    out, err = build.communicate(timeout=TIMEOUT)
    assert build.returncode == 2, err[-2000:]
    assert noise(err) == [] and "could not be written" in err.splitlines()[-1], err[-2000:]


def dask_process(kind: str, *args, env: dict | None = None) -> subprocess.Popen:
    """``dask scheduler`` or ``dask worker`` started as a user starts them: a process of
    its own, so that this process has no Dask client a build could lean on."""
    module = {"scheduler": "distributed.cli.dask_scheduler", "worker": "distributed.cli.dask_worker"}[kind]
    return subprocess.Popen([sys.executable, "-m", module, *map(str, args), "--no-dashboard"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, **(env or {})})


def test_a_build_on_a_scheduler_of_its_own_with_a_worker_that_joins_later(tmp_path):
    """``muehle build --scheduler`` on a scheduler and workers started as a user starts
    them (every build failed there with Dask's "No clients found": the client of
    --scheduler is not Dask's default, and the tests' scheduler had one).  The one worker
    there at the start, with no ``memory`` resource, dies writing pair 4-4 (the crash
    hook); a worker that joins afterwards, with no resource either, is given its memory
    as it joins, but too late for Dask to give it the waiting task: the build says so in
    one line (it waited for ever) and the rerun finishes; with no worker left the build
    says so too, instead of waiting for ever."""
    import json
    import time
    info = tmp_path / "scheduler.json"
    scheduler = dask_process("scheduler", "--port", "0", "--scheduler-file", info)
    started = []
    try:
        deadline = time.monotonic() + 60
        while not info.exists() or not info.read_text():
            assert time.monotonic() < deadline and scheduler.poll() is None, "the scheduler did not start"
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        crash = {"MUEHLE_CRASH_AT": "temporary-complete:pair-4-4.h5"}
        started.append(dask_process("worker", address, "--nthreads", "1", "--no-nanny", env=crash))
        db = tmp_path / "db"
        command = [sys.executable, "-m", "solver", "build", "--db", str(db), "--stones", "4",
                   "--phase", "moving", "--quiet", "--scheduler", address]
        build = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env={**os.environ, "MUEHLE_CLUSTER_WAIT": "3"})
        started[0].wait(timeout=TIMEOUT)                   # killed by the hook, writing 4-4
        assert build.poll() is None, build.communicate()
        started.append(dask_process("worker", address, "--nthreads", "1"))
        out, err = build.communicate(timeout=TIMEOUT)
        # Where the scheduler had marked the retried task as waiting for a worker before
        # the new one made its offer (just after it joins), Dask does not look at the task
        # again: the build says so instead of waiting for ever, and the rerun, whose
        # offers come first, finishes.  (Which of the two happens is a race.)
        if build.returncode != 0:
            assert build.returncode == 2 and noise(err) == [], err[-2000:]
            assert err.splitlines()[-1] == ("muehle: error: no worker has taken up pair-4-4 (a worker that "
                                            "joined during the build without --resources memory=BYTES?) "
                                            "(waited 3 s); rerun to resume"), err[-2000:]
            rerun = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
            assert rerun.returncode == 0 and noise(rerun.stderr) == [], rerun.stderr[-2000:]
            out = rerun.stdout
        assert noise(err) == [] and ("3 pair(s) built" in out or "1 pair(s) built, 2 already there" in out), out
        assert CliRunner().invoke(main, ["check", "--db", str(db), "--stones", "4", "--quiet"]).exit_code == 0
        # no worker left (the one there dies, none joins): one line, not a wait for ever
        started[1].kill()
        started[1].wait()
        (storage.pair_path(db, Rules(stones=4), (4, 4))).unlink()
        started.append(dask_process("worker", address, "--nthreads", "1", "--no-nanny", env=crash))
        stalled = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT,
                                 env={**os.environ, "MUEHLE_CLUSTER_WAIT": "2"})
        assert stalled.returncode == 2, stalled.stderr
        assert stalled.stderr.splitlines()[-1] == (f"muehle: error: the Dask scheduler at {address} has no "
                                                   f"workers left (waited 2 s); rerun to resume"), stalled.stderr
    finally:
        for process in [*started, scheduler]:
            process.kill()
            process.wait()
