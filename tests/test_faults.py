"""The fault suite: damaged, truncated and foreign database files, failing writes and a
second build on the same folder.  Every case must end in a DatabaseError (one line,
naming the file) or in the right values: never a crash, a hang or a wrong value.

The figures (inputs tried, files damaged, crashes, wrong values) are in
docs/benchmarks.md, section "Fault suite"; run with ``-s`` to print them.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from solver import storage
from solver.build import BuildLock, build, is_built
from solver.errors import DatabaseError, ForeignDatabaseError
from solver.index import Pair
from solver.probe import open_database
from solver.rules import Rules

FOUR = Rules(stones=4)
PAIR = Pair(3, 3)


def outcome_of(path: Path, expected: dict) -> str:
    """'refused' (a DatabaseError), 'same' (values equal to the intact file's) or 'WRONG'."""
    try:
        for sub in PAIR.subspaces:
            codes = storage.read_subspace(path, FOUR, *sub)
            if not np.array_equal(codes, expected[sub]):
                return "WRONG"
            # the probe path: chunk by chunk, through its own cache
            with open_database(path.parent.parent, FOUR) as db:
                for slot in range(0, sub.slots, 9973):
                    db._chunk_code(sub, slot)
                    if db._chunk_code(sub, slot) != expected[sub][slot]:
                        return "WRONG"
    except DatabaseError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 400
        return "refused"
    return "same"


@pytest.fixture(scope="module")
def intact(db4):
    path = storage.pair_path(db4, FOUR, PAIR)
    return path.read_bytes(), {s: storage.read_subspace(path, FOUR, *s) for s in PAIR.subspaces}


def flip_sweep(tmp_path, intact, offsets) -> dict:
    data, expected = intact
    path = storage.pair_path(tmp_path, FOUR, PAIR)
    path.parent.mkdir(parents=True, exist_ok=True)
    counts = {"refused": 0, "same": 0, "WRONG": 0}
    for offset, bit in offsets:
        damaged = bytearray(data)
        damaged[offset] ^= 1 << bit
        path.write_bytes(bytes(damaged))
        result = outcome_of(path, expected)
        counts[result] += 1
        assert result != "WRONG", f"byte {offset} bit {bit}"
    return counts


def test_single_bit_flips_sampled_over_the_whole_file(tmp_path, intact):
    rng = random.Random(2026)
    n = len(intact[0])
    # every 1/600th of the file, plus the first 4 KiB (superblock, object headers) densely
    offsets = [(o, rng.randrange(8)) for o in range(0, n, max(1, n // 600))]
    offsets += [(o, rng.randrange(8)) for o in range(0, min(n, 4096), 16)]
    counts = flip_sweep(tmp_path, intact, offsets)
    print(f"\nbit flips: {len(offsets)} files damaged, {counts}")
    assert counts["refused"] > len(offsets) // 2


@pytest.mark.slow
def test_single_bit_flips_every_byte(tmp_path, intact):
    rng = random.Random(7)
    offsets = [(o, rng.randrange(8)) for o in range(len(intact[0]))]
    counts = flip_sweep(tmp_path, intact, offsets)
    print(f"\nbit flips (every byte): {len(offsets)} files damaged, {counts}")


def test_truncated_files_are_refused(tmp_path, intact):
    data, expected = intact
    path = storage.pair_path(tmp_path, FOUR, PAIR)
    path.parent.mkdir(parents=True, exist_ok=True)
    for length in [0, 1, 7, 8, 100, 511, 512, 2048, len(data) // 2, len(data) - 1]:
        path.write_bytes(data[:length])
        assert outcome_of(path, expected) == "refused", length


def test_wrong_files_are_refused(db4, tmp_path, intact):
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    target = storage.pair_path(tmp_path, FOUR, (3, 4))
    shutil.copy(storage.pair_path(tmp_path, FOUR, (3, 3)), target)     # a pair under another's name
    with pytest.raises(ForeignDatabaseError, match="does not hold pair 3-4"):
        storage.read_subspace(target, FOUR, 3, 4)
    with pytest.raises(ForeignDatabaseError):
        storage.pair_stats(target, FOUR, (3, 4))
    with pytest.raises(ForeignDatabaseError, match="rules"):       # other rules
        storage.read_subspace(storage.pair_path(tmp_path, FOUR, (3, 3)), Rules(stones=4, jumping=False), 3, 3)
    for junk in [b"", b"not a database\n", os.urandom(4096), b"\x89HDF\r\n\x1a\n" + bytes(600)]:
        target.write_bytes(junk)
        with pytest.raises(DatabaseError):
            storage.read_subspace(target, FOUR, 3, 4)
    # build notices all this and rebuilds, saying why
    reports = build(tmp_path, FOUR, phase="moving", progress=False)
    assert [r.pair for r in reports if not r.skipped] == [(3, 4)]
    assert is_built(tmp_path, FOUR, (3, 4))


def run_cli(*args, env=None, preexec=None):
    return subprocess.run([sys.executable, "-m", "solver", *map(str, args)], capture_output=True,
                          text=True, env=env, preexec_fn=preexec, cwd=Path(__file__).parent.parent,
                          timeout=300)


def test_a_write_failure_is_one_line_and_leaves_no_temporary(tmp_path):
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))

    result = run_cli("build", "--db", tmp_path, "--stones", 4, preexec=limit)
    assert result.returncode == 2, result.stderr[-2000:]
    lines = [line for line in result.stderr.splitlines() if "error" in line.lower()]
    assert len(lines) == 1 and "could not be written" in lines[0] and "pair-3-3.h5" in lines[0]
    assert "Traceback" not in result.stderr
    assert not list(storage.rules_dir(tmp_path, FOUR).glob(".*.tmp-*"))


def test_a_second_build_on_the_same_folder_says_who_holds_it(tmp_path):
    folder = storage.rules_dir(tmp_path, FOUR)
    folder.mkdir(parents=True)
    with BuildLock(folder):
        # the whole game, the placement phase alone (whose moving files the holder may be
        # writing: said as the holder, not as files missing) and a cluster (refused
        # before the cluster starts, without Dask's words)
        for extra in ([], ["--phase", "placement"], ["--workers", "1"]):
            result = run_cli("build", "--db", tmp_path, "--stones", 4, *extra)
            assert result.returncode == 2, extra
            assert f"pid {os.getpid()}" in result.stderr and result.stderr.count("\n") == 1, result.stderr
    # a lock left by a killed holder is free again (flock dies with its process)
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; sys.path.insert(0, '.');"
                               "from solver.build import BuildLock; from pathlib import Path;"
                               f"l = BuildLock(Path({str(folder)!r})).__enter__(); print('held', flush=True);"
                               "time.sleep(60)"], cwd=Path(__file__).parent.parent,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    holder.kill()
    holder.wait()
    with BuildLock(folder):
        pass
    # the lock file deleted under a build: a second build still finds the folder taken
    with BuildLock(folder):
        (folder / ".build.lock").unlink()
        result = run_cli("build", "--db", tmp_path, "--stones", 4)
        assert result.returncode == 2 and "is being built by another process" in result.stderr, result.stderr
    with BuildLock(folder):
        pass


def test_a_build_that_would_not_fit_on_the_disk_is_refused_before_any_work(tmp_path, monkeypatch,
                                                                             caplog):
    """The files left to build are compared with the free space before any work (the
    whole game would find a full disk hours in): refused where they would not fit even
    at the least any game's files take a slot, a warning where they may not at the
    9-stone game's rate; the dry run says the disk it needs."""
    import collections
    import logging
    from solver import build as building
    usage = collections.namedtuple("usage", "total used free")
    slots = sum(p.slots for p in building.plan(FOUR))
    free = {"bytes": 1000}
    monkeypatch.setattr(building.shutil, "disk_usage", lambda path: usage(10**9, 0, free["bytes"]))
    with pytest.raises(DatabaseError, match=r"^the 3 file\(s\) left to build need at least 0\.00 GB "
                                            r"on disk, and .* has 0\.00 GB free: free some space or "
                                            r"give another database folder; nothing was built$"):
        build(tmp_path, FOUR, phase="moving", progress=False)
    assert not list(tmp_path.rglob("*.h5"))
    free["bytes"] = int(slots * 0.1)        # enough for these files, not at 0.37 a slot
    with caplog.at_level(logging.WARNING, logger="muehle.build"):
        build(tmp_path, FOUR, phase="moving", progress=False)
    assert len(list(tmp_path.rglob("pair-*.h5"))) == 3
    assert any("may need up to" in r.getMessage() for r in caplog.records)
    monkeypatch.undo()
    dry = run_cli("build", "--db", tmp_path, "--stones", 4, "--dry-run")
    assert dry.returncode == 0 and "GB more on disk" in dry.stdout.splitlines()[-1]


def test_a_fifo_or_folder_in_place_of_a_file_is_refused_not_waited_on(db4, tmp_path):
    """Opening a FIFO blocks until a writer comes: query, stats and check refuse it in
    one line instead (subprocesses with a timeout), naming the command that rebuilds it,
    and build replaces it; a folder there build leaves alone (it may hold someone's
    files) and says so in one line before any work (it said so after the solve, when
    its file could not be put there), a dry run too."""
    path = storage.pair_path(tmp_path, FOUR, (3, 4))
    for make in (os.mkfifo, os.mkdir):
        shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
        path.unlink()
        make(path)
        for args in (["query", "W:a1,d1,g1 B:a7,d7,f6,b6 w"], ["stats"], ["check", "--quiet"]):
            result = subprocess.run([sys.executable, "-m", "solver", *args, "--db", str(tmp_path),
                                     "--stones", "4"], capture_output=True, text=True, timeout=60)
            assert result.returncode in (1, 2) and "Traceback" not in result.stderr, (args, result)
            if make is os.mkfifo:
                assert "is not a regular file" in result.stderr, (args, result)
                assert "rebuild it with: muehle build" in result.stderr
            else:                 # not 'rebuild it', which build refuses for a folder (below)
                assert "is a folder, not a database file: move it away, then build again" in result.stderr
        if make is os.mkdir:
            for dry in ([], ["--dry-run"]):
                result = subprocess.run([sys.executable, "-m", "solver", "build", *dry, "--db",
                                         str(tmp_path), "--stones", "4", "--quiet"],
                                        capture_output=True, text=True, timeout=60)
                assert result.returncode == 2 and result.stderr.splitlines()[-1] == (
                    f"muehle: error: {path} is a folder where a database file belongs: "
                    f"move it away, then build again"), result.stderr
            assert not list(path.parent.glob(".*tmp*")) and path.is_dir()    # nothing done
            path.rmdir()
        build(tmp_path, FOUR, phase="moving", progress=False)
        assert path.is_file() and is_built(tmp_path, FOUR, PAIR) and is_built(tmp_path, FOUR, Pair(3, 4))


def test_check_and_stats_name_the_command_that_rebuilds_a_file(db4, tmp_path):
    """check and stats end a line on a damaged, foreign or missing file with the command
    that builds it again, as query does (they said only what was wrong); a file that is
    well formed but wrong gets the same command, to run after deleting it (build keeps it
    as intact); and a dry run refuses what the build would refuse."""
    from click.testing import CliRunner
    from solver.cli import main

    def run(*args):
        return CliRunner().invoke(main, [*args, "--db", str(tmp_path), "--stones", "4"])
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    target = storage.pair_path(tmp_path, FOUR, (3, 4))
    hint = f"rebuild it with: muehle build --db {tmp_path} --stones 4 --pair 3-4"
    shutil.copy(storage.pair_path(tmp_path, FOUR, PAIR), target)        # 3-3 as 3-4
    for args, status in ((["check", "--quiet"], 1), (["stats"], 1), (["check", "--quiet", "--pair", "4-4"], 1)):
        result = run(*args)
        assert result.exit_code == status and result.stderr.rstrip().endswith(hint), (args, result.stderr)
    target.unlink()
    result = run("check", "--quiet", "--pair", "3-4")
    assert result.exit_code == 1 and result.stderr.rstrip().endswith(
        f"(build it with: muehle build --db {tmp_path} --stones 4 --pair 3-4)"), result.stderr
    shutil.copy(storage.pair_path(db4, FOUR, (3, 4)), target)
    codes = {sub: storage.read_subspace(target, FOUR, *sub).copy() for sub in Pair(3, 4).subspaces}
    first = next(iter(codes))
    codes[first][int(np.flatnonzero(codes[first] == 0)[0])] = 3          # a draw made a win
    storage.write_file(target, FOUR, codes)
    result = run("check", "--quiet")
    assert result.exit_code == 1 and "pair 3-4: 3 states disagree with their successors; first:" in result.stderr
    assert result.stderr.rstrip().endswith(
        f"is well formed but wrong (its checksums match what was written): delete it and build "
        f"it again with: muehle build --db {tmp_path} --stones 4 --pair 3-4"), result.stderr
    dry = run("build", "--dry-run", "--memory", "1M")
    assert dry.exit_code == 2 and "more than the memory limit of 1 MiB; nothing was built" in dry.stderr


def test_check_recounts_the_statistics_a_file_records(db4, tmp_path, monkeypatch):
    """The counts and longest win and loss that stats prints are the build's own count,
    kept in the file's header; check counts the values again, so a header edited with
    its checksum made again does not pass (the values themselves are intact)."""
    import h5py
    from click.testing import CliRunner
    from solver.cli import main
    monkeypatch.chdir(tmp_path)             # (a short path: the whole line is kept)
    shutil.copytree(db4, "db")
    path = storage.pair_path("db", FOUR, (4, 4))
    for key, value, wrong in (("longest_win", 999, "longest_win: 999 recorded, 9 counted"),
                              ("wins", 1159, "wins: 1,159 recorded, 159 counted")):
        with h5py.File(path, "r+") as f:
            ds = f["4-4"]
            ds.attrs[key] = value
            ds.attrs[storage.META_KEY] = storage.meta_digest(storage._attrs(ds))
        stats = CliRunner().invoke(main, ["stats", "--db", "db", "--stones", "4"])
        assert stats.exit_code == 0 and f"{value:,}" in stats.output   # (the header only)
        result = CliRunner().invoke(main, ["check", "--quiet", "--db", "db", "--stones", "4"])
        assert result.exit_code == 1, result.output
        assert result.stderr == (f"muehle: error: {path}: subspace 4-4 records statistics its values "
                                 f"do not have ({wrong}); rebuild it with: "
                                 f"muehle build --db db --stones 4 --pair 4-4\n")


def test_memory_limit_holds_for_a_damaged_file_built_again(db4, tmp_path):
    """--memory was checked only for the files missing at the start: a damaged one was
    rebuilt above the limit. Now it is refused before its solve, the others kept."""
    from click.testing import CliRunner
    from solver.build import plan_units
    from solver.cli import main
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    path = storage.pair_path(tmp_path, FOUR, (4, 4))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(data)
    need = {u.key.name: u.memory for u in plan_units(FOUR, phase="moving")}["4-4"]
    args = ["build", "--db", str(tmp_path), "--stones", "4", "--phase", "moving", "--quiet"]
    refused = CliRunner().invoke(main, [*args, "--memory", str(need - 2**20)])
    assert refused.exit_code == 2 and refused.stderr.rstrip().endswith(
        "; its file is unusable and was not built again; the files built before it "
        "are kept"), refused.stderr
    assert path.read_bytes() == data
    built = CliRunner().invoke(main, [*args, "--memory", str(need + 2**20)])
    assert built.exit_code == 0 and "1 pair(s) built, 2 already there" in built.output
    assert is_built(tmp_path, FOUR, Pair(4, 4))


def test_a_file_that_cannot_be_opened_for_want_of_descriptors_is_not_called_damaged(db4, tmp_path,
                                                                                   monkeypatch):
    """Out of file descriptors (a server with many connections), opening a good file
    failed as "cannot read database file ...; rebuild it with": advice to throw away a
    good file, and a build would have built it again. Now the error says why, with no
    such advice, and a build stops there, the file kept."""
    script = f"""
import os, resource
from solver.probe import open_database
from solver.position import parse_position
from solver.rules import Rules
db = open_database({str(db4)!r}, Rules(stones=4))
pos = parse_position("W:a1,d1,g1,b4 B:a7,d7,f6,g4 b")
from solver.kernels import kernels_for; kernels_for(pos.board)
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
held = []
try:
    while True:
        held.append(os.open(os.devnull, os.O_RDONLY))
except OSError:
    pass
try:
    db.probe(pos)
except Exception as error:
    print(type(error).__name__, error)
for fd in held:
    os.close(fd)
print(db.probe(pos))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    first, second = result.stdout.splitlines()[:2]
    assert first.startswith("DatabaseError cannot open database file ") and first.endswith(
        "pair-4-4.h5: too many open files"), result.stdout + result.stderr[-2000:]
    assert second.startswith(("win", "loss", "draw"))       # the same file, once there are some
    # A build that cannot open a file it finds does not build it again.
    import errno
    import h5py
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    path = storage.pair_path(tmp_path, FOUR, (4, 4))
    data, opened = path.read_bytes(), h5py.File

    def no_descriptor(name, mode="r", *args, **kwargs):
        if Path(name) == path and mode == "r":
            raise OSError(errno.EMFILE, "Too many open files")
        return opened(name, mode, *args, **kwargs)
    monkeypatch.setattr(h5py, "File", no_descriptor)
    with pytest.raises(DatabaseError, match="too many open files$") as caught:
        build(tmp_path, FOUR, phase="moving", progress=False)
    assert type(caught.value) is DatabaseError and "rebuild" not in str(caught.value)
    assert path.read_bytes() == data


def test_leftovers_of_killed_runs_are_cleared_or_named(db4, tmp_path, caplog):
    """Holding the folder's lock, a build deletes the token files of a killed cluster
    build's check and the temporaries written on this host, whatever runs now under the
    number in their names (they outlived a complete build before), and names those
    written on other hosts (a machine of a cluster may still write one), keeping them."""
    import logging
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    folder = storage.rules_dir(tmp_path, FOUR)
    token = folder / ".cluster-token-0123abcd"
    token.write_text("secret")
    foreign = folder / ".pair-3-4.h5.tmp-otherbox-4242"
    foreign.write_bytes(b"partial")
    # this host's, of a process now running (this one) and of one gone, of a file built
    ours = [folder / f".pair-3-3.h5.tmp-{storage.HOST}-{os.getpid()}",
            folder / f".place-0-0+4-4.h5.tmp-{storage.HOST}-999999999"]
    for tmp in ours:
        tmp.write_bytes(b"partial")
    with caplog.at_level(logging.WARNING, logger="muehle.build"):
        build(tmp_path, FOUR, phase="moving", progress=False)
    assert not token.exists() and foreign.exists() and not any(tmp.exists() for tmp in ours)
    assert [r.getMessage() for r in caplog.records] == [
        f"leftover temporary file {foreign}, written on host otherbox (a build killed there?): "
        f"delete it unless a build there is still writing it"]


def test_a_lock_that_is_a_link_is_refused_not_followed(tmp_path):
    """The lock is emptied as it is taken: through a link planted in a shared folder a
    build would empty any file (a root build, any file at all)."""
    precious = tmp_path / "precious.txt"
    precious.write_text("data")
    folder = tmp_path / "db"
    folder.mkdir()
    (folder / ".build.lock").symlink_to(precious)
    with pytest.raises(DatabaseError, match=r"^cannot open the build lock .*\.build\.lock: it is a "
                                            r"symbolic link: remove it, a build makes its own$"):
        with BuildLock(folder):
            pass
    assert precious.read_text() == "data"
    (folder / ".build.lock").unlink()
    os.mkfifo(folder / ".build.lock")
    with pytest.raises(DatabaseError, match="is not a regular file"):
        with BuildLock(folder):
            pass


def test_a_lock_that_cannot_be_written_is_named(tmp_path, monkeypatch):
    def full(*args):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "pwrite", full)
    with pytest.raises(DatabaseError, match=r"^cannot write the build lock .*\.build\.lock: No space left on device$"):
        with BuildLock(tmp_path):
            pass


def test_a_lock_whose_leftovers_cannot_be_cleared_is_let_go(tmp_path, monkeypatch):
    """An error while clearing (another user's token in a shared folder) is one line, and
    the lock is free again (__exit__ does not run after a failed __enter__)."""
    (tmp_path / ".cluster-token-0123abcd").write_text("x")

    def refuse(self, missing_ok=False):
        raise PermissionError(13, "Permission denied", str(self))
    monkeypatch.setattr(Path, "unlink", refuse)
    with pytest.raises(DatabaseError, match="cannot clear what killed builds left in .*Permission denied"):
        with BuildLock(tmp_path):
            pass
    monkeypatch.undo()
    with BuildLock(tmp_path):       # free again
        pass


def test_a_dry_run_refuses_what_the_build_could_not_write(tmp_path):
    """A folder the build could not write in (read-only, not writable, a file where the
    rules' folder belongs) is refused by the build before any work and by its dry run
    alike (the dry run said the plan and exit 0; the build solved, then failed to write)."""
    import os
    from click.testing import CliRunner
    from solver.cli import main

    def run(*args, db=tmp_path / "db"):
        return CliRunner().invoke(main, ["build", "--db", str(db), "--stones", "4", "--quiet", *args])
    (tmp_path / "db").mkdir()
    storage.rules_dir(tmp_path / "db", FOUR).write_text("not a folder")
    for args in ([], ["--dry-run"]):
        result = run(*args)
        assert result.exit_code == 2 and "is not a folder" in result.stderr, result.stderr
    if os.geteuid() != 0:               # (root writes where the mode says no)
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        for args in ([], ["--dry-run"]):
            result = run(*args, db=locked)
            assert result.exit_code == 2 and "is not writable for this user" in result.stderr, result.stderr
    read_only = Path("/proc/sys")       # (a read-only file system wherever /proc is mounted)
    if read_only.is_dir() and os.statvfs(read_only).f_flag & os.ST_RDONLY:
        result = run("--dry-run", db=read_only)
        assert result.exit_code == 2 and "is on a read-only file system" in result.stderr, result.stderr


def test_check_names_files_no_build_writes(db4, tmp_path):
    """Files in a rules folder that no build of its rules writes (a pair of more stones,
    a file copied in) are named by check, not passed over in silence."""
    from click.testing import CliRunner
    from solver.cli import main
    shutil.copytree(db4, tmp_path, dirs_exist_ok=True)
    folder = storage.rules_dir(tmp_path, FOUR)
    shutil.copy(storage.pair_path(tmp_path, FOUR, (4, 4)), folder / "pair-6-6.h5")
    (folder / "random.h5").write_bytes(b"x" * 100)
    result = CliRunner().invoke(main, ["check", "--quiet", "--db", str(tmp_path), "--stones", "4",
                                       "--phase", "moving"])
    assert result.exit_code == 0 and result.stdout.startswith("ok: 3 pair(s)"), result.output
    assert (f"note: 2 file(s) in {folder} that no build of rules {FOUR.name} writes, not checked: "
            f"pair-6-6.h5, random.h5") in result.stderr
    # stats names them too (it passed them over in silence), and counts the others
    stats = CliRunner().invoke(main, ["stats", "--db", str(tmp_path), "--stones", "4"])
    assert stats.exit_code == 0 and stats.stderr == (
        f"note: 2 file(s) in {folder} that no build of rules {FOUR.name} writes, not counted: "
        f"pair-6-6.h5, random.h5\n"), stats.stderr


def test_sigterm_stops_a_build_with_one_line_and_the_rerun_resumes(tmp_path):
    """SIGTERM (kill, a batch system's stop) ends a build as Ctrl-C does: one line, the
    status a shell reports (143), the lock let go; the rerun finishes."""
    import signal
    import subprocess
    import sys
    import time
    command = [sys.executable, "-m", "solver", "build", "--db", str(tmp_path), "--stones", "5",
               "--phase", "moving", "--quiet"]
    build = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    folder = storage.rules_dir(tmp_path, Rules(stones=5))
    while not list(folder.glob("pair-*.h5")) and time.monotonic() < deadline and build.poll() is None:
        time.sleep(0.05)
    build.send_signal(signal.SIGTERM)
    out, err = build.communicate(timeout=120)
    assert build.returncode == 143, err
    assert err.splitlines()[-1] == "muehle: terminated (the same command resumes the build)", err
    assert "Traceback" not in err
    rerun = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0 and "already there" in rerun.stdout, rerun.stderr


def test_the_dry_runs_estimate_counts_each_files_own_cost():
    """A game of many small files (five-mens-mixed: 222 of them, 2 M slots) takes about
    5 s to build on the 2-core machine, most of it per file; the estimate said 1 s when
    it counted slots alone (docs/benchmarks.md, "The dry run's estimate")."""
    from solver import build as building
    from solver.rules import Rules

    files = building.build_plan(Rules.from_name("five-mens-mixed"))
    assert sum(len(f.outputs) for f in files) == 222
    slots_alone = sum(f.slots for f in files) / building.MOVING_RATE
    estimate = sum(f.seconds for f in files)
    assert slots_alone < 1 and 4 <= estimate <= 8
    assert estimate == pytest.approx(sum(f.slots / (building.MOVING_RATE if f.rounds else building.PLACEMENT_RATE)
                                         for f in files) + 222 * building.FILE_SECONDS)


@pytest.mark.parametrize("signum", ["SIGTERM", "SIGINT"])
def test_a_stop_that_arrives_inside_a_finaliser_is_not_lost(signum, capfd):
    """Python runs a signal's handler inside whatever code the main thread runs, also a
    finaliser or a weak reference's callback, where the stop it raises is printed as
    "Exception ignored" and dropped: a build killed there ran to its end and exited 0
    (seen in the suite).  The command's stop is sent again outside that code, and
    nothing is printed."""
    import signal
    import time
    from solver.cli.common import Terminated, stops_as_interrupts

    number = getattr(signal, signum)

    class Finalised:
        def __del__(self):
            signal.raise_signal(number)         # its handler runs here, in the finaliser
            sum(range(1000))

    expected = Terminated if signum == "SIGTERM" else KeyboardInterrupt
    with pytest.raises(expected):
        with stops_as_interrupts():
            Finalised()
            until = time.monotonic() + 5
            while time.monotonic() < until:     # the work goes on; the stop must come
                sum(range(1000))
            pytest.fail(f"the {signum} raised in a finaliser was lost")
    assert capfd.readouterr().err == ""


def test_a_rules_folder_that_is_a_link_to_no_folder_is_said_so(tmp_path):
    """A looping link (or one whose target is gone) in place of a rules' folder read as
    a folder with nothing built: probe said 'not built' and get returned its default."""
    from click.testing import CliRunner
    from solver.cli import main
    from solver.errors import DatabaseError
    from solver.probe import open_database
    (tmp_path / FOUR.name).symlink_to(FOUR.name)
    with pytest.raises(DatabaseError, match=rf"^{tmp_path / FOUR.name} is a link to {FOUR.name}, which leads "
                                            rf"to no folder \(a loop, or its target is gone\)"):
        open_database(tmp_path, FOUR)
    result = CliRunner().invoke(main, ["query", "--db", str(tmp_path), "--stones", "4", "W:a1,d1,g1 B:a7,d7,f6 w"])
    assert result.exit_code == 2 and "which leads to no folder" in result.stderr, result.output


def test_a_lock_removed_while_taken_is_not_held(tmp_path, monkeypatch):
    """A failed build clears the folder it made, lock included, while it still holds the
    lock; a build that opened that lock file just before must not hold the removed file
    as if it were the folder's lock (it would write into a folder that is gone)."""
    import fcntl
    from solver.build.lock import BuildLock
    from solver.errors import DatabaseError
    lock = BuildLock(tmp_path)
    real = fcntl.flock

    def cleared_meanwhile(fd, how):
        (tmp_path / ".build.lock").unlink()         # (the failed build's clearing)
        return real(fd, how)
    monkeypatch.setattr(fcntl, "flock", cleared_meanwhile)
    with pytest.raises(DatabaseError, match="was removed while this build took it"):
        lock.__enter__()
    monkeypatch.setattr(fcntl, "flock", real)
    with BuildLock(tmp_path):                        # (taken again, it holds)
        assert (tmp_path / ".build.lock").exists()
