package io.regent.server.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The node's HTTP side door, on the JDK's built-in server: {@code GET /metrics} (Prometheus text format
 * 0.0.4), {@code GET /healthz} (200 while the node is live, else 503 with the reason on one line: its Raft
 * division stopped for good and only a restart brings it back; docs/operations.md, "Health") and {@code GET /readyz} (200 when the node
 * is ready, else 503 with the reason on one line; on a cluster of several cells each reason names its cell, and a
 * cell stopped for good is named after {@code ready;} without making the node unready), and whatever other read-only pages the node adds beside them
 * (the console, {@code /console/}): all plaintext and unauthenticated (docs/security.md).
 */
public final class MetricsHttpServer implements AutoCloseable {
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;

  private MetricsHttpServer(InetSocketAddress address, Supplier<String> scrape, Supplier<Optional<String>> notLive,
                            Supplier<Optional<String>> notReady, Supplier<List<String>> stoppedCells,
                            Executor executor, Map<String, HttpHandler> more) throws IOException {
    this.server = HttpServer.create(address, 16);
    more.forEach(server::createContext);
    server.createContext("/metrics", ex -> answer(ex, 200, PROMETHEUS_TEXT, scrape.get()));
    server.createContext("/healthz", ex -> {
      Optional<String> reason = check(notLive, "liveness");
      answer(ex, reason.isEmpty() ? 200 : 503, "text/plain", reason.map(r -> "not live: " + r).orElse("ok") + "\n");
    });
    server.createContext("/readyz", ex -> {
      Optional<String> reason = check(notReady, "readiness");
      // a cell stopped for good does not make the node unready (it serves the others), but is named
      List<String> stopped = reason.isEmpty() ? stoppedCells.get() : List.of();
      answer(ex, reason.isEmpty() ? 200 : 503, "text/plain", reason.map(r -> "not ready: " + r)
          .orElse(stopped.isEmpty() ? "ready" : "ready; " + String.join("; ", stopped)) + "\n");
    });
    server.setExecutor(executor);
  }

  /**
   * Serves {@code metrics} on {@code host:port} (port 0 picks a free one), answering on {@code executor}
   * (the node's blocking pool).
   */
  public static MetricsHttpServer start(String host, int port, RegentMetrics metrics, Executor executor)
      throws IOException {
    return start(host, port, metrics, executor, Map.of());
  }

  /**
   * As {@link #start(String, int, RegentMetrics, Executor)}, also serving {@code more}: context path (a prefix
   * such as {@code /console}, none of {@code /metrics}, {@code /healthz}, {@code /readyz}) to its handler, which
   * answers every path under it (unknown ones too) on {@code executor}.
   *
   * @throws IllegalArgumentException when a path of {@code more} is one of the built-in ones
   */
  public static MetricsHttpServer start(String host, int port, RegentMetrics metrics, Executor executor,
                                        Map<String, HttpHandler> more) throws IOException {
    MetricsHttpServer s = new MetricsHttpServer(new InetSocketAddress(host, port), metrics::scrape,
        metrics::notLiveReason, metrics::notReadyReason, metrics::stoppedCells, executor, more);
    s.server.start();
    return s;
  }

  /**
   * Serves a scrape function and a readiness check (empty: ready) on {@code address}, answering on
   * {@code executor}; {@code /healthz} answers 200 while the process serves HTTP.
   */
  public static MetricsHttpServer start(InetSocketAddress address, Supplier<String> scrape,
                                        Supplier<Optional<String>> notReady, Executor executor) throws IOException {
    MetricsHttpServer s = new MetricsHttpServer(address, scrape, Optional::empty, notReady, List::of, executor,
        Map.of());
    s.server.start();
    return s;
  }

  private static Optional<String> check(Supplier<Optional<String>> reason, String what) {
    try {
      return reason.get();
    } catch (RuntimeException e) {
      return Optional.of(what + " check failed: " + e);
    }
  }

  /** The bound port. */
  public int port() {
    return server.getAddress().getPort();
  }

  private static void answer(HttpExchange ex, int code, String type, String body) throws IOException {
    try (ex) {
      if (!ex.getRequestMethod().equals("GET") && !ex.getRequestMethod().equals("HEAD")) {
        ex.sendResponseHeaders(405, -1);
        return;
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", type);
      if (ex.getRequestMethod().equals("HEAD")) {
        ex.sendResponseHeaders(code, -1);
        return;
      }
      ex.sendResponseHeaders(code, bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
