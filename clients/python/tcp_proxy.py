"""A TCP forwarder for the tests: an endpoint whose connections can be cut, as a node dying would cut them."""

from __future__ import annotations

import socket
import threading
from typing import List


class TcpProxy:
    """Forwards 127.0.0.1:<port> (`endpoint`) to `target` (host:port) until cut()."""

    def __init__(self, target: str) -> None:
        host, port = target.rsplit(":", 1)
        self._target = (host, int(port))
        self._server = socket.create_server(("127.0.0.1", 0))
        self.endpoint = "127.0.0.1:%d" % self._server.getsockname()[1]
        self._sockets: List[socket.socket] = []
        self._lock = threading.Lock()
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

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        """Refuses new connections and resets the open ones."""
        try:
            self._server.shutdown(socket.SHUT_RDWR)  # wakes the accept() (close() alone does not, on Linux)
        except OSError:
            pass
        self._server.close()
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for s in sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass
