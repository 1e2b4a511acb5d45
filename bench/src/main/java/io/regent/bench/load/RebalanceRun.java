package io.regent.bench.load;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.GroupJoinResponse;
import io.regent.api.v1.PartitionToken;
import io.regent.client.GroupClient;
import io.regent.client.RegentClient;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;

/**
 * {@code regent bench --workload rebalance}: ownership-group rebalances (docs/ownership.md). {@code members}
 * simulated members ({@link RebalanceMember}: one Watch stream each, spread over the endpoints, releasing at
 * once what they are asked to) share a group of {@code partitions}; then a member joins, one leaves and one
 * crashes (its lease is no longer renewed), one after the other. For each event: the time until every
 * member's view is stable again (each partition owned once, nothing to release or to receive, no release
 * unanswered), the log entries that changed the group, the partitions that moved, and the fan-out: how long
 * from the first member's Watch stream showing the change to the last one's. Times count from the call (the
 * join: a join with a new lease, one entry; the leave: the leave call) or, for the crash, from the sending of
 * the last renewal of its lease, so they include the TTL. At the end the members' streams are closed and their
 * leases left to expire together (leaving one by one would be one rebalance each).
 */
public final class RebalanceRun {
  /**
   * What to run.
   *
   * @param partitions partition count of the group, 1..65 536
   * @param members members before the join, at least 3 (one leaves, one crashes)
   * @param ttlMs the members' lease TTL: a crash is noticed after it
   * @param pidDir directory of the servers' {@code *.pid} files, for their CPU time per event; or null
   */
  public record Config(List<String> endpoints, int partitions, int members, long ttlMs, Path pidDir, String label) {
  }

  /** Longest wait for a stable assignment after an event, and for the set-up. */
  private static final long EVENT_WAIT_NANOS = TimeUnit.MINUTES.toNanos(2);
  private static final long SETUP_WAIT_NANOS = TimeUnit.MINUTES.toNanos(10);
  /** Joins in flight during the set-up. */
  private static final int PARALLEL_JOINS = 4;

  private final Config c;
  private final PrintWriter progress;
  private final String group = "bench-rebalance-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
  private final Map<String, RebalanceMember> members = new ConcurrentHashMap<>();
  /** Indexes of the entries that changed the group during the current event. */
  private final Set<Long> entries = ConcurrentHashMap.newKeySet();
  private final Object changes = new Object();
  private final Object renewing = new Object();
  /** A thread per member: members release at once, as separate processes would (fewer would queue them). */
  private final ExecutorService releasers;
  private final ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();
  private final Histogram fanout = new Histogram(LatencyStats.MAX_NANOS, 3);
  private final List<RegentClient> clients = new ArrayList<>();
  private final List<GroupClient> groups = new ArrayList<>();
  private ServerLoad load;
  /** Watch streams that ended and were opened again. */
  private final AtomicInteger streamEnds = new AtomicInteger();
  /** When the latest successful renewal of every member's lease was sent ({@link System#nanoTime}). */
  private volatile long lastRenewalSent;

  /** @param progress where a line per phase goes; null for none */
  public RebalanceRun(Config config, PrintWriter progress) {
    this.c = config;
    this.progress = progress;
    this.releasers = Executors.newFixedThreadPool(config.members() + 1);
  }

  /**
   * Runs the three events. The result's latency histogram holds, per event and member, the time from the first
   * member's stream showing the change to this member's; the figures per event are in its extras.
   *
   * @throws IllegalStateException when the assignment does not settle in time
   */
  public BenchResult run() throws Exception {
    for (int i = 0; i < c.endpoints().size(); i++) {
      List<String> rotated = new ArrayList<>();
      for (int k = 0; k < c.endpoints().size(); k++) {
        rotated.add(c.endpoints().get((i + k) % c.endpoints().size()));
      }
      RegentClient client = RegentClient.connect(rotated);
      clients.add(client);
      groups.add(new GroupClient(client));
    }
    Map<String, Object> extras = BenchResult.newExtras();
    load = ServerLoad.of(c.pidDir());
    long start = System.nanoTime();
    load.start();
    try {
      long period = c.ttlMs() / 3;
      renewer.scheduleWithFixedDelay(this::renew, period, period, TimeUnit.MILLISECONDS);
      say("setting up " + c.members() + " members of a group of " + c.partitions() + " partitions");
      setUp();
      long setupMs = (System.nanoTime() - start) / 1_000_000;
      extras.put("partitions", (long) c.partitions());
      extras.put("ttl_ms", c.ttlMs());
      extras.put("setup_ms", setupMs);
      if (load.any()) {
        extras.put("setup_server_cpu_ms", load.cpuMs());
      }
      say("stable after " + setupMs + " ms");

      event("join", extras, () -> {
        long t0 = System.nanoTime();
        RebalanceMember m = member("m-new", 0);
        m.watch();
        GroupJoinResponse joined = groups.get(0).joinWithTtl(group, m.id, 0, c.ttlMs()); // lease and join: 1 entry
        m.lease = joined.getLease();
        entries.add(joined.getIndex());
        return t0;
      });
      event("leave", extras, () -> {
        RebalanceMember leaving = members.remove("m0");
        long t0 = System.nanoTime();
        entries.add(groups.get(0).leave(group, leaving.id, leaving.lease));
        leaving.stop();
        return t0;
      });
      event("crash", extras, () -> {
        RebalanceMember crashed;
        long lastRenewal;
        synchronized (renewing) { // no renewal in flight: the last one that named its lease is done
          crashed = members.remove("m1");
          lastRenewal = lastRenewalSent;
        }
        crashed.stop();
        entries.add(0L); // the Expire entry (its index is not known here)
        return lastRenewal;
      });
      extras.put("watch_stream_ends", (long) streamEnds.get());
      extras.put("load1", BenchResult.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
      return new BenchResult(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString(), c.label(), "regent",
          "rebalance", c.members(), 0, (System.nanoTime() - start) / 1e9, fanout, Map.of(), extras);
    } finally {
      // no leaves (each a rebalance): the leases, no longer renewed, expire together after the TTL
      renewer.shutdownNow();
      members.values().forEach(RebalanceMember::stop);
      releasers.shutdownNow();
      clients.forEach(RegentClient::close);
    }
  }

  /** Joins the members, {@link #PARALLEL_JOINS} at a time, and waits for the assignment to settle. */
  private void setUp() throws Exception {
    ExecutorService joiners = Executors.newFixedThreadPool(PARALLEL_JOINS);
    AtomicInteger joined = new AtomicInteger();
    try {
      List<Future<?>> joins = new ArrayList<>();
      for (int i = 0; i < c.members(); i++) {
        String id = "m" + i;
        int client = i % clients.size();
        joins.add(joiners.submit(() -> {
          joinRetrying(client, id);
          int n = joined.incrementAndGet();
          if (n % 10 == 0) {
            say(n + " members joined");
          }
          return null;
        }));
      }
      for (Future<?> f : joins) {
        f.get();
      }
    } finally {
      joiners.shutdownNow();
    }
    awaitStable(System.nanoTime() + SETUP_WAIT_NANOS);
  }

  private RebalanceMember member(String id, long lease) {
    int client = Math.floorMod(id.hashCode(), clients.size());
    RebalanceMember m = new RebalanceMember(id, lease, groups.get(client), group, releasers, entries::add,
        this::changed, (member, why) -> {
          if (streamEnds.incrementAndGet() <= 10) {
            say("watch stream of " + member + " ended (" + (why == null ? "completed" : LatencyStats.kind(why))
                + "): watching again");
          }
        });
    m.markAbove(markAbove);
    members.put(id, m);
    return m;
  }

  /**
   * Grants a lease and joins with it, retried while the cluster is slow or changing leader: a join is
   * idempotent per (member, lease); a grant whose answer was lost leaves a lease that expires unused.
   */
  private void joinRetrying(int client, String id) {
    RebalanceMember m = null;
    for (int attempt = 1; ; attempt++) {
      try {
        if (m == null) {
          m = member(id, clients.get(client).leases().grant(c.ttlMs()));
          m.watch();
        }
        groups.get(client).join(group, m.id, c.partitions(), m.lease);
        return;
      } catch (StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        if (attempt == 5 || (code != Status.Code.UNAVAILABLE && code != Status.Code.DEADLINE_EXCEEDED)) {
          throw e;
        }
      }
    }
  }

  /** What starts an event; returns the time the event counts from ({@link System#nanoTime}). */
  private interface Event {
    long start() throws Exception;
  }

  /**
   * Runs one event and waits until the assignment is stable again; puts its figures into {@code extras}
   * ({@code EVENT_ms}, {@code _entries}, {@code _moved}, {@code _fanout_ms}, {@code _notified}).
   */
  private void event(String name, Map<String, Object> extras, Event event) throws Exception {
    Map<Integer, String> before = owners();
    long mark = members.values().stream().mapToLong(m -> m.view().getIndex()).max().orElse(0);
    markAbove = mark;
    members.values().forEach(m -> m.markAbove(mark));
    entries.clear();
    load.start();
    long t0 = event.start();
    long stable = awaitStable(t0 + EVENT_WAIT_NANOS);
    Map<Integer, String> after = owners();
    long moved = after.entrySet().stream().filter(e -> !e.getValue().equals(before.get(e.getKey()))).count();
    long[] seen = members.values().stream().mapToLong(RebalanceMember::seenAboveMark).filter(t -> t != 0).sorted()
        .toArray();
    long first = seen.length == 0 ? stable : seen[0];
    for (long t : seen) {
      fanout.recordValue(Math.min(t - first, LatencyStats.MAX_NANOS));
    }
    long fanoutMs = seen.length == 0 ? 0 : Math.round((seen[seen.length - 1] - first) / 1e6);
    long ms = Math.round((stable - t0) / 1e6);
    extras.put(name + "_ms", ms);
    extras.put(name + "_entries", (long) entries.size());
    extras.put(name + "_moved", moved);
    extras.put(name + "_fanout_ms", fanoutMs);
    extras.put(name + "_notified", (long) seen.length);
    if (load.any()) {
      extras.put(name + "_server_cpu_ms", load.cpuMs());
    }
    say(String.format(Locale.ROOT, "%s: stable after %d ms, %d entries, %d partitions moved; %d members' streams "
        + "saw it within %d ms of the first", name, ms, entries.size(), moved, seen.length, fanoutMs));
  }

  /** The mark of the current event, for members that start during it. */
  private volatile long markAbove = Long.MAX_VALUE;

  /** Renews every member's lease in one call; a failed round is retried at the next tick. */
  private void renew() {
    synchronized (renewing) {
      List<Long> leases = members.values().stream().map(m -> m.lease).filter(l -> l != 0).toList();
      if (leases.isEmpty()) {
        return;
      }
      long sent = System.nanoTime();
      try {
        clients.get(0).leases().keepAliveMany(leases, c.ttlMs() / 3);
        lastRenewalSent = sent;
      } catch (StatusRuntimeException e) {
        say("renewal failed: " + e.getStatus().getCode());
      }
    }
  }

  private void changed() {
    synchronized (changes) {
      changes.notifyAll();
    }
  }

  /** Waits until the members' views cover every partition once with nothing moving; the time it was seen. */
  private long awaitStable(long deadlineNanos) throws InterruptedException {
    synchronized (changes) {
      while (true) {
        long now = System.nanoTime();
        if (stable()) {
          return now;
        }
        members.values().stream().filter(RebalanceMember::lost).findFirst().ifPresent(m -> {
          throw new IllegalStateException("member " + m.id + " lost its lease: renewals were too slow for the "
              + c.ttlMs() + " ms TTL (an overloaded machine?); try a longer --ttl");
        });
        if (now >= deadlineNanos) {
          throw new IllegalStateException("no stable assignment of group " + group + " in time");
        }
        changes.wait(Math.max(1, (deadlineNanos - now) / 1_000_000));
      }
    }
  }

  private boolean stable() {
    int owned = 0;
    for (RebalanceMember m : members.values()) {
      var v = m.view();
      if (!v.getJoined() || v.getReleaseCount() > 0 || v.getIncomingCount() > 0 || m.releasing()) {
        return false;
      }
      owned += v.getOwnedCount();
    }
    return owned == c.partitions();
  }

  private Map<Integer, String> owners() {
    Map<Integer, String> out = new TreeMap<>();
    for (RebalanceMember m : members.values()) {
      for (PartitionToken p : m.view().getOwnedList()) {
        out.put(p.getPartition(), m.id);
      }
    }
    return out;
  }

  private void say(String line) {
    if (progress != null) {
      progress.println("[bench " + c.label() + " rebalance] " + line);
      progress.flush();
    }
  }
}
