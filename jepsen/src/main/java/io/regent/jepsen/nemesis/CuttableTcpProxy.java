package io.regent.jepsen.nemesis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One TCP proxy on loopback: a client connects to {@link #port()} and its bytes go to {@code upstream} and
 * back. {@link #cut()} makes the link hang, as a dead route or a frozen peer does: bytes already read are
 * held, nothing is forwarded either way, connections stay open (no reset, no error: the client sees only
 * silence and its deadlines); {@link #heal()} lets the held bytes through, like TCP retransmits after a
 * partition heals. Two threads per connection (blocking I/O), daemons; {@link #close()} ends them all.
 */
final class CuttableTcpProxy implements AutoCloseable {
  private final InetSocketAddress upstream;
  private final ServerSocket server;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Object gate = new Object();
  private boolean cut;
  private volatile long lastSentNanos;

  /** Listens on an ephemeral loopback port; forwards to {@code host:port}. */
  CuttableTcpProxy(String host, int port, String name) throws IOException {
    this.upstream = new InetSocketAddress(host, port);
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "tcp-proxy-" + name);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The loopback port clients connect to. */
  int port() {
    return server.getLocalPort();
  }

  /** {@link System#nanoTime()} when the client last sent bytes through (0: never). */
  long lastSentNanos() {
    return lastSentNanos;
  }

  /** Makes the link hang (idempotent). */
  void cut() {
    synchronized (gate) {
      cut = true;
    }
  }

  /** Lets bytes through again, those held first (idempotent). */
  void heal() {
    synchronized (gate) {
      cut = false;
      gate.notifyAll();
    }
  }

  private void awaitOpen() throws InterruptedException {
    synchronized (gate) {
      while (cut) {
        gate.wait();
      }
    }
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      Socket up = new Socket();
      try {
        up.connect(upstream, 5_000);
      } catch (IOException e) {
        closeQuietly(client); // the node is down: the client sees a refused/closed connection, as it would
        closeQuietly(up);
        continue;
      }
      sockets.add(client);
      sockets.add(up);
      pump(client, up, true);
      pump(up, client, false);
    }
  }

  private void pump(Socket from, Socket to, boolean fromClient) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        for (int n; (n = in.read(buf)) >= 0; ) {
          awaitOpen();
          if (fromClient) {
            lastSentNanos = System.nanoTime();
          }
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException | InterruptedException e) {
        // one side closed: close both below
      } finally {
        closeQuietly(from);
        closeQuietly(to);
        sockets.remove(from);
        sockets.remove(to);
      }
    }, "tcp-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() {
    heal();
    closeQuietly(server);
    sockets.forEach(CuttableTcpProxy::closeQuietly);
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
