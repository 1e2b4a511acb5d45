package io.regent.server.console;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.regent.server.confirm.Confirmer;
import io.regent.server.membership.ClusterView;
import io.regent.statemachine.replica.ReplicaView;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's read-only web console under {@value #PATH}, served beside {@code /metrics} on the node's HTTP port:
 * one page ({@code /console/}, with {@code console.js} and {@code console.css} from the classpath, nothing fetched
 * from elsewhere) and its JSON endpoints (docs/operations.md, "Web console"):
 *
 * <ul>
 *   <li>{@code GET /console/api/cluster}: members, role, term, commit and applied index, leader, readiness;
 *   <li>{@code GET /console/api/names?prefix=P&limit=N}: names with holder, token, lease, time left, waiters and
 *       lock-delay (N in 1..{@value #MAX_LIMIT}, default {@value #DEFAULT_LIMIT});
 *   <li>{@code GET /console/api/leases?limit=N}: leases with TTL, time left and what they hold;
 *   <li>{@code GET /console/api/groups}: ownership groups, partition by partition;
 *   <li>{@code GET /console/api/events?after=SEQ&limit=N}: the recent events after sequence number SEQ (a
 *       resumable poll; without {@code after}, the latest N).
 * </ul>
 *
 * <p>Nothing here changes state: every method but GET and HEAD is 405, an unknown path 404, an unknown, repeated
 * or malformed query parameter 400, each with a JSON body {@code {"error": "..."}} saying why. Handlers run on the
 * executor of the HTTP server (the node's blocking pool).
 */
public final class Console implements HttpHandler {
  /** Context path the console is served under. */
  public static final String PATH = "/console";
  /** Default and largest {@code limit} of the list endpoints. */
  static final int DEFAULT_LIMIT = 200;
  /** See {@link #DEFAULT_LIMIT}. */
  static final int MAX_LIMIT = 1000;
  /** Events the console keeps for its pages. */
  static final int EVENT_CAPACITY = 1000;

  private static final Logger LOG = LoggerFactory.getLogger(Console.class);
  private static final String JSON = "application/json; charset=utf-8";
  /** The page may load its own script, style and JSON, and nothing else; no inline script runs. */
  private static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
      + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private final ConsoleState state;
  private final EventLog events = new EventLog(EVENT_CAPACITY);
  private final Map<String, Resource> resources = new HashMap<>();

  private record Resource(String type, byte[] body) {
  }

  /** A request refused with {@code code} and {@code message}; nothing was read or changed. */
  private static final class Refused extends RuntimeException {
    final int code;

    Refused(int code, String message) {
      super(message, null, false, false);
      this.code = code;
    }
  }

  /**
   * A console of this node; it starts listening to {@code replica}'s events at once (events applied before are
   * not in its list).
   *
   * @param cluster what {@code Cluster.Status} answers from
   * @param replica this node's state and events
   * @param confirmer asked for the time leases have left (see {@link ConsoleState})
   * @param notReady this node's readiness as {@code /readyz} reports it (empty: ready)
   * @throws UncheckedIOException when the page's resources are missing from the classpath (a broken build)
   */
  public Console(ClusterView cluster, ReplicaView replica, Confirmer confirmer,
                 Supplier<Optional<String>> notReady) {
    this.state = new ConsoleState(cluster, replica, confirmer, notReady);
    resources.put(PATH + "/", load("index.html", "text/html; charset=utf-8"));
    resources.put(PATH + "/index.html", resources.get(PATH + "/"));
    resources.put(PATH + "/console.js", load("console.js", "text/javascript; charset=utf-8"));
    resources.put(PATH + "/console.css", load("console.css", "text/css; charset=utf-8"));
    replica.hub().listen(events);
  }

  private static Resource load(String file, String type) {
    try (InputStream in = Console.class.getResourceAsStream(file)) {
      if (in == null) {
        throw new UncheckedIOException(new IOException("console resource " + file + " is not on the classpath"));
      }
      return new Resource(type, in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void handle(HttpExchange ex) throws IOException {
    try (ex) {
      try {
        serve(ex);
      } catch (Refused e) {
        send(ex, e.code, JSON, error(e.getMessage()));
      } catch (RuntimeException e) {
        LOG.warn("console request {} failed: {}", ex.getRequestURI(), e.toString());
        send(ex, 503, JSON, error("this node could not read its state: " + e));
      }
    }
  }

  private void serve(HttpExchange ex) throws IOException {
    ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    ex.getResponseHeaders().set("Referrer-Policy", "no-referrer");
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    String method = ex.getRequestMethod();
    if (!method.equals("GET") && !method.equals("HEAD")) {
      ex.getResponseHeaders().set("Allow", "GET, HEAD");
      send(ex, 405, JSON, error("the console is read-only: " + method + " is not allowed (GET or HEAD)"));
      return;
    }
    String path = ex.getRequestURI().getRawPath();
    if (path.equals(PATH)) {
      ex.getResponseHeaders().set("Location", PATH + "/");
      send(ex, 308, "text/plain; charset=utf-8", ("see " + PATH + "/\n").getBytes(StandardCharsets.UTF_8));
      return;
    }
    Resource r = resources.get(path);
    if (r != null) {
      noQuery(ex);
      ex.getResponseHeaders().set("Content-Security-Policy", CSP);
      send(ex, 200, r.type(), r.body());
      return;
    }
    send(ex, 200, JSON, ConsoleJson.of(answer(path, query(ex))).getBytes(StandardCharsets.UTF_8));
  }

  private Object answer(String path, Map<String, String> q) {
    switch (path) {
      case PATH + "/api/cluster" -> {
        allow(q);
        return state.cluster();
      }
      case PATH + "/api/names" -> {
        allow(q, "prefix", "limit");
        return state.names(q.getOrDefault("prefix", ""), limit(q));
      }
      case PATH + "/api/leases" -> {
        allow(q, "limit");
        return state.leases(limit(q));
      }
      case PATH + "/api/groups" -> {
        allow(q);
        return state.groups();
      }
      case PATH + "/api/events" -> {
        allow(q, "after", "limit");
        long after = q.containsKey("after") ? number(q, "after", 0, Long.MAX_VALUE) : -1;
        return state.events(events, after, limit(q));
      }
      default -> throw new Refused(404, "no console page " + path + " (pages: " + PATH + "/, " + PATH
          + "/api/cluster, names, leases, groups, events)");
    }
  }

  private static int limit(Map<String, String> q) {
    return q.containsKey("limit") ? (int) number(q, "limit", 1, MAX_LIMIT) : DEFAULT_LIMIT;
  }

  private static long number(Map<String, String> q, String key, long min, long max) {
    String v = q.get(key);
    try {
      long n = Long.parseLong(v);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new Refused(400, "query parameter " + key + "='" + v + "' is not a whole number in " + min + ".." + max);
  }

  private static void allow(Map<String, String> q, String... keys) {
    Set<String> known = Set.of(keys);
    for (String k : q.keySet()) {
      if (!known.contains(k)) {
        throw new Refused(400, "unknown query parameter '" + k + "'" + (keys.length == 0 ? " (this page takes none)"
            : " (known: " + String.join(", ", keys) + ")"));
      }
    }
  }

  private static void noQuery(HttpExchange ex) {
    if (ex.getRequestURI().getRawQuery() != null) {
      throw new Refused(400, "this page takes no query parameters");
    }
  }

  private static Map<String, String> query(HttpExchange ex) {
    String raw = ex.getRequestURI().getRawQuery();
    Map<String, String> out = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&", -1)) {
      int eq = pair.indexOf('=');
      String k;
      String v;
      try {
        k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        throw new Refused(400, "malformed query: " + e.getMessage());
      }
      if (out.put(k, v) != null) {
        throw new Refused(400, "query parameter '" + k + "' is given twice");
      }
    }
    return out;
  }

  private static byte[] error(String message) {
    return ConsoleJson.of(ConsoleState.obj("error", message)).getBytes(StandardCharsets.UTF_8);
  }

  private static void send(HttpExchange ex, int code, String type, byte[] body) throws IOException {
    ex.getResponseHeaders().set("Content-Type", type);
    if (ex.getRequestMethod().equals("HEAD")) {
      ex.sendResponseHeaders(code, -1);
      return;
    }
    ex.sendResponseHeaders(code, body.length == 0 ? -1 : body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }
}
