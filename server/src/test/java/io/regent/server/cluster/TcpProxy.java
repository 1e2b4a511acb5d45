package io.regent.server.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A one-direction TCP link between two test nodes that can be cut or frozen. While blocked, existing
 * connections are closed and new ones are closed on accept, so the nodes behind it behave as if partitioned.
 * While frozen, connections stay open (and new ones are accepted) but no byte passes until the link thaws, as
 * when the process behind it is stopped ({@code kill -STOP}, a long GC pause): callers wait out their timeouts
 * instead of seeing a closed connection.
 */
final class TcpProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final int targetPort;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile boolean blocked;
  private boolean frozen;

  TcpProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.listener = new ServerSocket();
    listener.bind(new InetSocketAddress("127.0.0.1", 0));
    Thread t = new Thread(this::acceptLoop, "proxy-" + port() + "-" + targetPort);
    t.setDaemon(true);
    t.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  /** Cuts (true) or restores (false) the link. */
  void setBlocked(boolean blocked) {
    this.blocked = blocked;
    synchronized (this) {
      notifyAll(); // a frozen pump gives up its connection
    }
    if (blocked) {
      open.forEach(TcpProxy::closeQuietly);
      open.clear();
    }
  }

  /** Holds (true) or releases (false) every byte on the link; connections stay open. */
  synchronized void setFrozen(boolean frozen) {
    this.frozen = frozen;
    notifyAll();
  }

  /** Waits while the link is frozen; false when it was cut meanwhile. */
  private synchronized boolean awaitThawed() throws InterruptedException {
    while (frozen && !blocked) {
      wait();
    }
    return !blocked;
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        Socket in = listener.accept();
        if (blocked) {
          closeQuietly(in);
          continue;
        }
        Socket out;
        try {
          out = new Socket("127.0.0.1", targetPort);
        } catch (IOException e) {
          closeQuietly(in); // target down: refuse, as the node itself would
          continue;
        }
        // Without TCP_NODELAY, Nagle's algorithm and delayed ACKs add ~40 ms to every small Raft message.
        in.setTcpNoDelay(true);
        out.setTcpNoDelay(true);
        open.add(in);
        open.add(out);
        pump(in, out);
        pump(out, in);
      } catch (IOException e) {
        // Listener closed.
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while (!blocked && (n = in.read(buf)) >= 0 && awaitThawed()) {
          out.write(buf, 0, n);
        }
      } catch (IOException e) {
        // Connection cut.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    }, "pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // Already closed.
    }
  }

  @Override
  public void close() {
    setBlocked(true);
    try {
      listener.close();
    } catch (IOException e) {
      // Already closed.
    }
  }
}
