"""The browser interface (``muehle serve``): a page to play, query and analyse on a
board, and a JSON API, served locally by Starlette under uvicorn.

It sits at the top of the pipeline with the command line: it uses the public API
(:mod:`solver.analysis`, :mod:`solver.probe`, :mod:`solver.game`,
:mod:`solver.players`, :mod:`solver.svg`) and nothing below imports it.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Callable, Optional

from ..rules import STANDARD, Rules
from .app import create_app

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


def server_config(app, timeout: float = 5.0):
    """uvicorn's configuration of the server: the h11 protocol, with a connection that
    sends no request within ``timeout`` seconds closed, as uvicorn closes one idle that
    long between requests (it keeps one that never sends anything open for ever, so
    that enough of them use up the process's file descriptors)."""
    import uvicorn
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class FirstRequestTimeout(H11Protocol):
        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            # (the timer uvicorn sets after a response; the first data cancels it)
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive,
                                                                self.timeout_keep_alive_handler)

    return uvicorn.Config(app, log_level="warning", lifespan="on", http=FirstRequestTimeout,
                          timeout_keep_alive=timeout)


def serve(root: Path | str = "data", rules: Rules = STANDARD, host: str = "127.0.0.1",
          port: int = 8000, announce: Optional[Callable[[str], None]] = print) -> None:
    """Serve the page and the API until interrupted; ``announce`` gets the address."""
    import uvicorn

    sock = bind(host, port)
    server = uvicorn.Server(server_config(create_app(root, rules)))
    if announce is not None:
        announce(address(sock))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        # uvicorn shuts down on Ctrl-C, then raises it again: stopping is the normal end.
        pass
    finally:
        sock.close()
