"""The browser interface (``muehle serve``): a page to play, query and analyse on a
board, and a JSON API, served locally by Starlette under uvicorn.

It sits at the top of the pipeline with the command line: it uses the public API
(:mod:`solver.analysis`, :mod:`solver.probe`, :mod:`solver.game`,
:mod:`solver.players`, :mod:`solver.svg`) and nothing below imports it.
"""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path
from typing import Callable, Optional

from ..rules import STANDARD, Rules
from .app import LOOPBACK_HOSTS, SEARCH_SECONDS, create_app

__all__ = ["create_app", "serve", "bind"]


def bind(host: str = "127.0.0.1", port: int = 8000) -> socket.socket:
    """A listening socket on ``host``:``port`` (port 0: any free port); OSError (one
    line: which address, and why) if it cannot listen there."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say TCP,
    # and without it a keep-alive client waits for delayed ACKs (40 ms a request).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        failure = OSError(f"cannot listen on {host}:{port}: {(error.strerror or str(error)).lower()}")
        failure.errno = error.errno
        raise failure from None
    sock.set_inheritable(True)
    return sock


def address(sock: socket.socket) -> str:
    """The page's address for a socket from :func:`bind`."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


#: Seconds a request may take to arrive whole (its line, headers and body), counted from
#: when the connection is ready for it.
REQUEST_DEADLINE = 10.0
#: Seconds a client may leave its answers unread (the server's buffer for it full)
#: before the connection is dropped.
WRITE_DEADLINE = 30.0


def connection_limit() -> int:
    """Connections served at once by default: a quarter of the process's file
    descriptors (at most 1000), the rest left to the database files (a probe keeps each
    file it read open: some 500 for the standard game's two phases)."""
    import resource
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 1000 if soft == resource.RLIM_INFINITY else max(16, min(1000, soft // 4))


def server_config(app, timeout: float = 5.0, request_deadline: float = REQUEST_DEADLINE,
                  max_connections: Optional[int] = None, write_deadline: float = WRITE_DEADLINE,
                  max_per_client: Optional[int] = None):
    """uvicorn's configuration of the server: the h11 protocol, with four limits that
    uvicorn leaves out, so that no client (a careless one, or a slowloris) holds
    connections for ever and uses up the descriptors the database files need:

    - a connection that sends no request within ``timeout`` seconds is closed, as uvicorn
      closes one idle that long between requests (it keeps one that never sends
      anything open);
    - a request must have arrived whole within ``request_deadline`` seconds of the connection
      being ready for it (uvicorn's timer stops at the first byte: half a request line,
      or a body shorter than its length, kept the connection open for ever); the work it
      asks for has no limit;
    - beyond ``max_connections`` open at once (default :func:`connection_limit`) a new
      connection is closed at once, with a warning a minute at most (without it, the
      process ran out of descriptors, and asyncio logged each failed accept, megabytes a
      second);
    - beyond ``max_per_client`` open at once from one address (default: an eighth of
      ``max_connections``, at least 8; a browser opens about 6) a new one from it is
      closed at once, so that one client holding its connections half open cannot lock
      the others out (1,050 of them did, for the 10 s of the deadline, again and again);
    - a connection whose client leaves its answers unread is dropped once they have
      not got shorter for ``write_deadline`` seconds (its buffer full, or it closed with
      answers unsent: a close waits for them to be sent, which a client that reads
      nothing never lets happen; a thousand of them pipelining requests, never reading,
      held every connection the server takes); a slow reader is served to the end.
    """
    import logging
    import time

    import uvicorn
    from uvicorn.protocols.http.h11_impl import H11Protocol

    most = connection_limit() if max_connections is None else max_connections
    per_client = max(8, most // 8) if max_per_client is None else max_per_client
    log = logging.getLogger("uvicorn.error")
    warned = [float("-inf")]
    open_from: dict[str, int] = {}          # address -> its connections open now

    class GuardedH11(H11Protocol):
        _deadline_task = None
        _ready_cycle = None
        _stall_task = None
        _stall_seen = 0
        _paused = False

        def pause_writing(self) -> None:
            super().pause_writing()
            self._paused = True
            self._watch_writes()

        def resume_writing(self) -> None:
            self._paused = False                    # (the reader reads: a slow one is served)
            if self._stall_task is not None and not self.transport.is_closing():
                self._stall_task.cancel()           # (a pause later is timed afresh)
                self._stall_task = None
            super().resume_writing()

        def _watch_writes(self) -> None:
            """In ``write_deadline`` seconds, drop the connection if its writing is still
            held up (paused since, or closed and its unsent answers no shorter); nothing
            where no answer waits unsent."""
            if self._stall_task is None and self.transport.get_write_buffer_size():
                self._stall_seen = self.transport.get_write_buffer_size()
                self._stall_task = self.loop.call_later(write_deadline, self._stall_check)

        def _stall_check(self) -> None:
            self._stall_task = None
            left = self.transport.get_write_buffer_size()
            if self.transport.is_closing():
                # (closed: nothing is added any more, so a shorter buffer is progress)
                if left and left >= self._stall_seen:
                    self.transport.abort()          # (close would wait for the reader)
                elif left:
                    self._watch_writes()
            elif self._paused:
                self.transport.abort()

        def _close(self) -> None:
            """Close, once the answers already made are sent (watched: they must move)."""
            self.transport.close()
            self._watch_writes()

        def timeout_keep_alive_handler(self) -> None:
            super().timeout_keep_alive_handler()
            self._watch_writes()

        _client = None                      # the address counted in open_from

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            if len(self.connections) > most:
                if time.monotonic() - warned[0] > 60:
                    warned[0] = time.monotonic()
                    log.warning("%d connections open, the most this server takes: new ones are "
                                "closed until some end", most)
                transport.close()
                return
            peer = transport.get_extra_info("peername")
            address = peer[0] if isinstance(peer, tuple) and peer else None
            if address is not None:
                if open_from.get(address, 0) >= per_client:
                    if time.monotonic() - warned[0] > 60:
                        warned[0] = time.monotonic()
                        log.warning("%d connections open from %s, the most this server takes from one "
                                    "client: its new ones are closed until some end", per_client, address)
                    transport.close()
                    return
                open_from[address] = open_from.get(address, 0) + 1
                self._client = address
            # (the timer uvicorn sets after a response; the first data cancels it)
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive,
                                                                self.timeout_keep_alive_handler)
            self._arm_deadline()

        def _arm_deadline(self) -> None:
            if self._deadline_task is not None:
                self._deadline_task.cancel()
            self._ready_cycle = self.cycle          # the request to come makes a new one
            self._deadline_task = self.loop.call_later(request_deadline, self._deadline_passed)

        def _request_whole(self) -> bool:
            return self.cycle is not None and self.cycle is not self._ready_cycle and not self.cycle.more_body

        def handle_events(self) -> None:
            super().handle_events()
            if self._deadline_task is not None and self._request_whole():
                self._deadline_task.cancel()
                self._deadline_task = None

        def on_response_complete(self) -> None:
            if not self.transport.is_closing():
                self._arm_deadline()                # before a pipelined request is read
            super().on_response_complete()

        def connection_lost(self, exc) -> None:
            for task in (self._deadline_task, self._stall_task):
                if task is not None:
                    task.cancel()
            self._deadline_task = self._stall_task = None
            if self._client is not None:
                left = open_from.get(self._client, 1) - 1
                if left > 0:
                    open_from[self._client] = left
                else:
                    open_from.pop(self._client, None)
                self._client = None
            super().connection_lost(exc)

        def _deadline_passed(self) -> None:
            self._deadline_task = None
            if not self.transport.is_closing() and not self._request_whole():
                self._close()                       # a request being read learns it left

    # backlog: also how many connections asyncio accepts at one go, before any of them
    # is seen (uvicorn's 2048 took a burst of a thousand past the limit at once)
    return uvicorn.Config(app, log_level="warning", lifespan="on", http=GuardedH11,
                          timeout_keep_alive=timeout, backlog=min(128, most))


def host_names(host: str, sock: socket.socket) -> Optional[set[str]]:
    """The names a server listening on ``sock`` (from :func:`bind`, given ``host``)
    answers to: on loopback the local names, the address and the name it was given
    (127.0.1.1 is the machine's own name on Debian), so that a site that points its
    own name at it (DNS rebinding) is not answered; elsewhere any (None).

    >>> sock = bind("127.0.0.1", 0); sorted(host_names("localhost", sock)); sock.close()
    ['127.0.0.1', '[::1]', 'localhost']
    """
    bound = sock.getsockname()[0]
    if not ipaddress.ip_address(bound).is_loopback:
        return None
    return set(LOOPBACK_HOSTS) | {host.lower(), f"[{bound}]" if ":" in bound else bound}


def serve(root: Path | str = "data", rules: Rules = STANDARD, host: str = "127.0.0.1",
          port: int = 8000, announce: Optional[Callable[[str], None]] = print,
          search_seconds: Optional[float] = SEARCH_SECONDS) -> None:
    """Serve the page and the API until interrupted; ``announce`` gets the address;
    ``search_seconds``: the opening search a request may start (None: no limit)."""
    import uvicorn

    sock = bind(host, port)
    # On loopback only the local names: a site that points its own name at 127.0.0.1
    # (DNS rebinding) is not answered.
    app = create_app(root, rules, hosts=host_names(host, sock), search_seconds=search_seconds)
    server = uvicorn.Server(server_config(app))
    if announce is not None:
        announce(address(sock))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        # uvicorn shuts down on Ctrl-C, then raises it again: stopping is the normal end.
        pass
    finally:
        sock.close()
