"""A TCP forwarder for the tests: an endpoint whose connections can be cut, as a node dying would cut them, or
paused, as a network partition would stall them."""

from __future__ import annotations

import socket
import threading
from typing import List


class TcpProxy:
    """Forwards 127.0.0.1:<port> (`endpoint`) to `target` (host:port) until cut(); pause() holds every byte, both
    ways, until resume() (connections stay open, new ones are accepted and held likewise)."""

    def __init__(self, target: str) -> None:
        host, port = target.rsplit(":", 1)
        self._target = (host, int(port))
        self._server = socket.create_server(("127.0.0.1", 0))
        self.endpoint = "127.0.0.1:%d" % self._server.getsockname()[1]
        self._sockets: List[socket.socket] = []
        self._lock = threading.Lock()
        self._flowing = threading.Event()
        self._flowing.set()
        threading.Thread(target=self._accept, name="tcp-proxy", daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                down, _ = self._server.accept()
                up = socket.create_connection(self._target)
            except OSError:
                return  # cut
            with self._lock:
                self._sockets += [down, up]
            for a, b in ((down, up), (up, down)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                self._flowing.wait()  # paused: held here (and in the kernel's buffers behind it) until resume()
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def pause(self) -> None:
        """Holds every byte from now on, both ways: calls through it neither arrive nor are answered."""
        self._flowing.clear()

    def resume(self) -> None:
        """Delivers what was held, and forwards again."""
        self._flowing.set()

    def cut(self) -> None:
        """Refuses new connections and resets the open ones."""
        try:
            self._server.shutdown(socket.SHUT_RDWR)  # wakes the accept() (close() alone does not, on Linux)
        except OSError:
            pass
        self._server.close()
        self._flowing.set()  # the held pipes end too
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for s in sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass
