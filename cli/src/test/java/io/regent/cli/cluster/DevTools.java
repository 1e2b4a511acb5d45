package io.regent.cli.cluster;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A minimal Chrome DevTools Protocol client for one page target, over the JDK's WebSocket: sends a command, waits
 * for the reply with the same id. Enough for a test to read a live page's DOM and take a screenshot; events the
 * browser sends unasked are ignored.
 */
final class DevTools implements AutoCloseable {
  private static final Duration REPLY_WAIT = Duration.ofSeconds(30);

  private final WebSocket socket;
  private final Map<Long, CompletableFuture<JsonObject>> pending = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();

  private DevTools(URI page) throws Exception {
    this.socket = HttpClient.newHttpClient().newWebSocketBuilder().buildAsync(page, new Listener())
        .get(REPLY_WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  /** Connects to a page target's {@code webSocketDebuggerUrl}. */
  static DevTools connect(String webSocketDebuggerUrl) throws Exception {
    return new DevTools(URI.create(webSocketDebuggerUrl));
  }

  /**
   * Sends {@code method} with {@code params} and returns its {@code result}.
   *
   * @throws IllegalStateException when the browser answers with an error
   */
  JsonObject call(String method, JsonObject params) throws Exception {
    long id = ids.incrementAndGet();
    CompletableFuture<JsonObject> reply = new CompletableFuture<>();
    pending.put(id, reply);
    JsonObject msg = new JsonObject();
    msg.addProperty("id", id);
    msg.addProperty("method", method);
    msg.add("params", params);
    socket.sendText(msg.toString(), true).get(REPLY_WAIT.toSeconds(), TimeUnit.SECONDS);
    JsonObject r = reply.get(REPLY_WAIT.toSeconds(), TimeUnit.SECONDS);
    if (r.has("error")) {
      throw new IllegalStateException(method + ": " + r.get("error"));
    }
    return r.getAsJsonObject("result");
  }

  /**
   * The value of the JavaScript {@code expression} in the page (JSON-serializable values only).
   *
   * @throws IllegalStateException when the expression throws
   */
  JsonElement eval(String expression) throws Exception {
    JsonObject p = new JsonObject();
    p.addProperty("expression", expression);
    p.addProperty("returnByValue", true);
    JsonObject r = call("Runtime.evaluate", p);
    if (r.has("exceptionDetails")) {
      throw new IllegalStateException(expression + " threw: " + r.get("exceptionDetails"));
    }
    JsonObject result = r.getAsJsonObject("result");
    return result.has("value") ? result.get("value") : null;
  }

  /** {@link #eval} of an expression whose value is a string (null when it is null or undefined). */
  String text(String expression) throws Exception {
    JsonElement v = eval(expression);
    return v == null || v.isJsonNull() ? null : v.getAsString();
  }

  @Override
  public void close() {
    socket.abort();
  }

  private final class Listener implements WebSocket.Listener {
    private final StringBuilder partial = new StringBuilder();

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        JsonObject msg = JsonParser.parseString(partial.toString()).getAsJsonObject();
        partial.setLength(0);
        if (msg.has("id")) {
          CompletableFuture<JsonObject> f = pending.remove(msg.get("id").getAsLong());
          if (f != null) {
            f.complete(msg);
          }
        }
      }
      ws.request(1);
      return null;
    }

    @Override
    public void onError(WebSocket ws, Throwable error) {
      pending.values().forEach(f -> f.completeExceptionally(error));
    }
  }
}
