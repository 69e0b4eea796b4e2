"""A real server of the web app on a free port of 127.0.0.1, in a thread of the test's
process (for what Starlette's TestClient cannot show: concurrency, a browser, a client
that leaves)."""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Iterator


@contextlib.contextmanager
def serving(app, deadline: float = 20.0, **options) -> Iterator[tuple[str, object]]:
    """(the base address without a trailing slash, the uvicorn Server) while ``app`` runs,
    configured as ``muehle serve`` configures it (``options``: of server_config)."""
    import uvicorn
    from solver.web import address, bind, server_config
    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(server_config(app, **options))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        until = time.monotonic() + deadline
        while not server.started:
            if time.monotonic() > until or not thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.05)
        yield address(sock).rstrip("/"), server
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
