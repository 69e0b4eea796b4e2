#!/usr/bin/env python3
"""Benchmark of `muehle serve`: API latency over loopback and, optionally, the page's
answer to a click in headless Chromium.

Usage: python scripts/bench_web.py --db DIR [--rules standard-s4] [--queries 300]
                                   [--games 4] [--no-placement] [--browser] [--browser-games 2]

Starts the server in a subprocess on 127.0.0.1 (a free port) with the databases of
DIR, then measures, with one keep-alive HTTP connection:

- ``/api/query`` of random moving-phase positions (drawn uniformly from the built
  subspaces) and of random placement positions (random placements from the start),
  each asked twice: the second time is the warm figure; then the same answers
  computed in this process without HTTP (the server's own work);
- ``/api/game`` with one more move and hints on (what the page asks after a click)
  along random games, and ``/api/play`` (the perfect player's reply);
- with ``--browser``: in Chromium, the time from a click that completes a move to the
  new board drawn with its hints (measured inside the page, ``performance.now()``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from machine import cpu_model  # noqa: E402

from solver import storage  # noqa: E402
from solver.analysis import query_object  # noqa: E402
from solver.game import Game  # noqa: E402
from solver.index import random_positions  # noqa: E402
from solver.notation import format_position  # noqa: E402
from solver.position import parse_position  # noqa: E402
from solver.position import Position  # noqa: E402
from solver.probe import open_database  # noqa: E402
from solver.retro import pairs_in_order  # noqa: E402
from solver.rules import Rules  # noqa: E402

SERVER = ("import sys; from solver.web import serve; from solver.rules import Rules; "
          "serve(sys.argv[1], Rules.from_name(sys.argv[2]), port=0, "
          "announce=lambda a: print(a, flush=True))")


def start_server(db: str, rules: Rules) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-c", SERVER, db, rules.name], stdout=subprocess.PIPE,
                            text=True, cwd=Path(__file__).resolve().parent.parent)
    address = proc.stdout.readline().strip()
    if not address.startswith("http://127.0.0.1:"):
        proc.kill()
        raise SystemExit(f"the server did not start: {address!r}")
    return proc, address


class Client:
    """One keep-alive connection; ``post`` returns (seconds, answer)."""

    def __init__(self, address: str):
        host, port = address.removeprefix("http://").rstrip("/").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=120)
        self.connect()

    def connect(self) -> None:
        self.conn.close()
        self.conn.connect()
        # As browsers do: without it http.client's separate header and body writes
        # wait for the server's delayed ACK (about 40 ms a request).
        self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def post(self, path: str, body: dict) -> tuple[float, dict]:
        data = json.dumps(body).encode()
        for attempt in (1, 2):
            try:
                start = time.perf_counter()
                self.conn.request("POST", path, data, {"Content-Type": "application/json"})
                response = self.conn.getresponse()
                raw = response.read()
                elapsed = time.perf_counter() - start
                break
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                if attempt == 2:
                    raise
                self.connect()          # the server closed an idle keep-alive connection
        answer = json.loads(raw)
        if response.status != 200:
            raise SystemExit(f"{path} {body}: {response.status} {answer}")
        return elapsed, answer


def summary(name: str, seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return (f"{name:<44} {len(ms):>5}  median {statistics.median(ms):7.2f} ms  "
            f"p95 {p95:7.2f} ms  max {ms[-1]:7.2f} ms")


def moving_positions(db: str, rules: Rules, count: int, rng: np.random.Generator) -> list[str]:
    subs = [s for p in pairs_in_order(rules) if storage.pair_path(db, rules, p).exists()
            for s in p.subspaces]
    out: list[str] = []
    while len(out) < count:
        m, o = subs[rng.integers(len(subs))][:2]
        own, opp = random_positions(rng, m, o, 1)
        turn = "w" if rng.random() < 0.5 else "b"
        pos = Position.from_view(int(own[0]), int(opp[0]), 0, 0, turn)
        if pos.terminal_wdl(rules) is None:
            out.append(format_position(pos))
    return out


def placement_positions(rules: Rules, count: int, rng: random.Random) -> list[str]:
    out: list[str] = []
    while len(out) < count:
        game = Game(None, rules)
        for _ in range(rng.randrange(1, 2 * rules.stones)):
            moves = game.legal_moves()
            if not moves:
                break
            game.play(rng.choice(moves))
        if game.outcome() is None and game.position.own_hand:
            out.append(format_position(game.position))
    return out


def bench_api(client: Client, db: str, rules: Rules, queries: int, games: int,
              placement: bool) -> None:
    rng = np.random.default_rng(1)
    pick = random.Random(1)
    sets = [("moving-phase", moving_positions(db, rules, queries, rng))]
    if placement:
        sets.append(("placement", placement_positions(rules, queries, pick)))
    for kind, positions in sets:
        first, warm = [], []
        for pos in positions:
            first.append(client.post("/api/query", {"position": pos})[0])
        for pos in positions:
            warm.append(client.post("/api/query", {"position": pos})[0])
        print(summary(f"/api/query {kind}, first time", first))
        print(summary(f"/api/query {kind}, warm", warm))
        # The server's own work, without HTTP: the same answer computed in this process.
        with open_database(db, rules, in_memory=rules.stones <= 5) as database:
            parsed = [parse_position(p, rules) for p in positions]
            for pos in parsed:
                query_object(database, pos)
            work = []
            for pos in parsed:
                start = time.perf_counter()
                json.dumps(query_object(database, pos))
                work.append(time.perf_counter() - start)
        print(summary(f"  the answer alone (in process), {kind}", work))
    clicks = {"placement": [], "moving": []}
    replies = []
    for number in range(games):
        moves: list[str] = []
        state = client.post("/api/game", {"moves": moves})[1]
        while state["game_over"] is None and len(moves) < 120:
            phase = "placement" if state["hands"][state["side"]] else "moving"
            moves.append(pick.choice(state["moves"]))             # the human's click
            elapsed, state = client.post("/api/game", {"moves": moves, "hints": True})
            clicks[phase].append(elapsed)
            if state["game_over"] is not None:
                break
            elapsed, state = client.post("/api/play", {"moves": moves, "level": "perfect",
                                                       "seed": number})
            replies.append(elapsed)
            moves = state["played"]
    for phase, seconds in clicks.items():
        if seconds:
            print(summary(f"/api/game + hints after a click, {phase}", seconds))
    if replies:
        print(summary("/api/play perfect reply (and its hints)", replies))


def bench_browser(address: str, rules: Rules, games: int) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    options = Options()
    options.binary_location = shutil.which("chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,1000"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
    idle = lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-busy") == "0"  # noqa: E731
    # Click the points of a move; resolve with the ms from the last click to the board
    # redrawn with the move (the page then asks for the computer's reply).
    script = """
        const [points, done] = [arguments[0], arguments[arguments.length - 1]];
        const board = document.getElementById('board');
        const ply = board.dataset.ply;
        for (const p of points.slice(0, -1)) board.querySelector(`[data-point='${p}']`).dispatchEvent(new MouseEvent('click', {bubbles: true}));
        const start = performance.now();
        const observer = new MutationObserver(() => {
            if (board.dataset.ply !== ply) { observer.disconnect(); done(performance.now() - start); }
        });
        observer.observe(board, {attributes: true});
        board.querySelector(`[data-point='${points[points.length - 1]}']`).dispatchEvent(new MouseEvent('click', {bubbles: true}));
    """
    driver.set_script_timeout(60)
    pick = random.Random(2)
    timings = []
    try:
        driver.get(address)
        WebDriverWait(driver, 60).until(lambda d: idle(d) and d.find_element(By.ID, "board").get_attribute("data-ply") == "0")
        for _ in range(games):
            driver.find_element(By.ID, "new-game").click()
            WebDriverWait(driver, 60).until(idle)
            for _ in range(60):
                if driver.find_element(By.ID, "result").text:
                    break
                state = driver.execute_script("return S.state")
                move = pick.choice(state["moves"])
                parts = move.replace("-", " ").replace("x", " ").split()
                takes = [m for m in state["moves"] if m.split("x")[0] == move.split("x")[0]]
                # The stone to take is clicked only when the mill has a choice.
                points = parts if len(takes) > 1 else parts[:2 if "-" in move else 1]
                timings.append(driver.execute_async_script(script, points) / 1000)
                WebDriverWait(driver, 60).until(idle)
    finally:
        driver.quit()
    print(summary("page: click to board and hints drawn", timings))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--rules", default="standard-s4")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--no-placement", action="store_true",
                    help="skip placement positions (they need every moving-phase pair built)")
    ap.add_argument("--browser", action="store_true", help="also time clicks in headless Chromium")
    ap.add_argument("--browser-games", type=int, default=2)
    args = ap.parse_args()
    rules = Rules.from_name(args.rules)
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"databases: {args.db}, rules {rules.name}")
    proc, address = start_server(args.db, rules)
    try:
        bench_api(Client(address), args.db, rules, args.queries, args.games, not args.no_placement)
        if args.browser:
            bench_browser(address, rules, args.browser_games)
    finally:
        proc.terminate()
        proc.wait(10)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
