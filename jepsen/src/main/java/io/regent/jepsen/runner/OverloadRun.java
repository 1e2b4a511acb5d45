package io.regent.jepsen.runner;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.client.RegentClient;
import io.regent.jepsen.checker.OverloadChecker;
import io.regent.jepsen.checker.Verdict;
import io.regent.jepsen.client.Recorder;
import io.regent.jepsen.cluster.ClusterSpec;
import io.regent.jepsen.history.EdnWriter;
import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Keyword;
import io.regent.jepsen.history.Op;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code jepsen/run overload}: holders keep leases of {@code ttlMs}, renewing every TTL/3 with a unary keepalive
 * under a TTL/3 deadline, while {@code floodThreads} threads in the same runner send linearizable reads and
 * campaigns back to back to a cluster started with {@code --max-bulk-calls maxBulkCalls}, so that it sheds. A
 * holder whose lease is gone is granted a new one. Every holder and flood operation goes to {@code
 * history.edn}; {@link OverloadChecker} judges it. The negative control starts the nodes with {@code
 * --unsafe-no-priority-lanes} (every call in the bulk lane: docs/architecture.md §7.2) and must be invalid; a
 * control that saw no spurious expiry is reported unknown ("the flood was not strong enough"), never valid.
 */
final class OverloadRun {
  /** The negative control's server switch (TESTS ONLY, hidden). */
  static final String CONTROL_FLAG = "--unsafe-no-priority-lanes";
  /** Flood threads share this many clients (connections), as a tenant's many callers would. */
  private static final int FLOOD_CLIENTS = 8;

  private final OverloadCommand o;
  private final Recorder recorder = new Recorder();
  private final AtomicLong processes = new AtomicLong();
  private volatile boolean running = true;

  OverloadRun(OverloadCommand options) {
    this.o = options;
  }

  /** Runs; returns the results (also written to {@code results.json}) with {@code store} and {@code valid?}. */
  Map<String, Object> run() throws IOException, InterruptedException {
    Path dir = ClusterRun.storeDir(o.cluster.store,
        "overload-" + o.nodes + "n" + (o.negativeControl ? "-negative-control" : ""));
    Map<String, Object> results = new LinkedHashMap<>();
    results.put("store", dir.toString());
    results.put("negative-control?", o.negativeControl);
    results.put("ttl-ms", o.ttlMs);
    results.put("holders", o.holders);
    results.put("flood-threads", o.floodThreads);
    results.put("max-bulk-calls", o.maxBulkCalls);
    results.put("seconds", o.seconds);
    ClusterRun.run(dir, o.cluster.jar, results, (jar, store, data) -> {
      List<String> args = new ArrayList<>(List.of("--max-bulk-calls", Integer.toString(o.maxBulkCalls)));
      if (o.negativeControl) {
        ServerFlags.require(jar, CONTROL_FLAG);
        args.add(CONTROL_FLAG);
      }
      return new ClusterSpec(o.nodes, false, o.cluster.network, jar, store, data, ClusterSpec.DEFAULT_JVM, args);
    }, (cluster, data, out) -> {
      drive(cluster.endpoints());
      judge(out);
    });
    Files.writeString(dir.resolve("history.edn"), EdnWriter.toString(recorder.ops()));
    return results;
  }

  private void drive(List<String> endpoints) throws InterruptedException {
    List<RegentClient> clients = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    try {
      for (int i = 0; i < FLOOD_CLIENTS; i++) {
        clients.add(RegentClient.connect(rotated(endpoints, i)));
      }
      for (int h = 0; h < o.holders; h++) {
        RegentClient c = RegentClient.connect(rotated(endpoints, h));
        clients.add(c);
        threads.add(start("holder-" + h, () -> hold(c)));
      }
      for (int f = 0; f < o.floodThreads; f++) {
        RegentClient c = clients.get(f % FLOOD_CLIENTS);
        threads.add(start("flood-" + f, () -> flood(c)));
      }
      TimeUnit.SECONDS.sleep(o.seconds);
    } finally {
      running = false;
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(10));
      }
      clients.forEach(RegentClient::close);
    }
  }

  private static Thread start(String name, Runnable r) {
    Thread t = new Thread(r, "overload-" + name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static List<String> rotated(List<String> endpoints, int i) {
    int k = i % endpoints.size();
    List<String> r = new ArrayList<>(endpoints.subList(k, endpoints.size()));
    r.addAll(endpoints.subList(0, k));
    return r;
  }

  /** One holder: a lease renewed every TTL/3 on schedule, whatever the answers; a new lease once it is gone. */
  private void hold(RegentClient c) {
    long process = processes.incrementAndGet();
    long period = TimeUnit.MILLISECONDS.toNanos(o.ttlMs / 3);
    while (running) {
      long lease = -1;
      while (running && lease < 0) {
        recorder.append(process, Op.Type.INVOKE, "grant", null, null, null);
        try {
          lease = c.leases().grant(o.ttlMs);
          recorder.append(process, Op.Type.OK, "grant", null, lease, null);
        } catch (StatusRuntimeException e) {
          boolean refused = refusal(e);
          recorder.append(process, refused ? Op.Type.FAIL : Op.Type.INFO, "grant", null, null, error(e));
          process = refused ? process : processes.incrementAndGet(); // a process retires after :info
          pause(100);
        }
      }
      long next = System.nanoTime() + period;
      while (running && lease >= 0) {
        pause(TimeUnit.NANOSECONDS.toMillis(Math.max(0, next - System.nanoTime())));
        next += period;
        recorder.append(process, Op.Type.INVOKE, "keepalive", lease, null, null);
        try {
          long ttl = c.leases().keepAlive(lease, o.ttlMs / 3);
          recorder.append(process, Op.Type.OK, "keepalive", lease, ttl, null);
        } catch (StatusRuntimeException e) {
          boolean gone = e.getStatus().getCode() == Status.Code.NOT_FOUND;
          boolean refused = gone || refusal(e);
          recorder.append(process, refused ? Op.Type.FAIL : Op.Type.INFO, "keepalive", lease, null, error(e));
          process = refused ? process : processes.incrementAndGet();
          lease = gone ? -1 : lease;
        }
      }
    }
  }

  /** One flood thread: linearizable reads and non-blocking campaigns on 64 names, back to back. */
  private void flood(RegentClient c) {
    long process = processes.incrementAndGet();
    long lease = -1;
    while (running) {
      String name = "f" + ThreadLocalRandom.current().nextInt(64);
      boolean read = lease < 0 || ThreadLocalRandom.current().nextInt(10) < 7;
      String f = lease < 0 ? "flood-grant" : read ? "read" : "campaign";
      recorder.append(process, Op.Type.INVOKE, f, lease < 0 ? null : name, null, null);
      try {
        if (lease < 0) {
          lease = c.leases().grant(Math.max(60_000, TimeUnit.SECONDS.toMillis(o.seconds * 4L))); // outlives the run
          recorder.append(process, Op.Type.OK, f, null, lease, null);
        } else if (read) {
          recorder.append(process, Op.Type.OK, f, name, c.elections().leader(name).map(k -> k.getToken()).orElse(null),
              null);
        } else {
          c.elections().tryCampaign(name, lease, ByteString.EMPTY);
          recorder.append(process, Op.Type.OK, f, name, null, null);
        }
      } catch (StatusRuntimeException e) {
        boolean fail = refusal(e) || (read && e.getStatus().getCode() == Status.Code.UNAVAILABLE);
        recorder.append(process, fail ? Op.Type.FAIL : Op.Type.INFO, f, lease < 0 ? null : name, null, error(e));
        process = fail ? process : processes.incrementAndGet();
      }
    }
  }

  private static boolean refusal(StatusRuntimeException e) {
    return e.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED;
  }

  /** The {@code :error} of a failed or indeterminate op: the status code first, as {@code Errors} writes it. */
  private static Map<Keyword, Object> error(StatusRuntimeException e) {
    String d = e.getStatus().getDescription();
    return Map.of(Keyword.of("error"), e.getStatus().getCode() + (d == null ? "" : ": " + d));
  }

  private void pause(long ms) {
    try {
      TimeUnit.MILLISECONDS.sleep(ms); // pacing of the holder's schedule, not synchronisation
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  private void judge(Map<String, Object> results) {
    OverloadChecker.Outcome out = OverloadChecker.check(new History(recorder.ops()),
        TimeUnit.MILLISECONDS.toNanos(o.ttlMs));
    Verdict v = out.verdict();
    String explanation = out.explanation();
    if (o.negativeControl && v == Verdict.VALID) {
      v = Verdict.UNKNOWN; // a control that shows nothing proves nothing: never report it valid
      explanation = "the negative control showed no spurious expiry (the flood was not strong enough): " + explanation;
    }
    results.put("valid?", v.name().toLowerCase(Locale.ROOT));
    results.put("explanation", explanation);
    results.put("spurious-expiries", out.spurious());
    results.put("first-spurious-lease", out.firstSpurious());
    results.put("leases", out.leases());
    results.put("expiries", out.expired());
    results.put("renewals", out.renewals());
    results.put("keepalive-refusals", out.keepaliveRefusals());
    results.put("flood-ops", out.floodOps());
    results.put("flood-refusals", out.floodRefusals());
  }
}
