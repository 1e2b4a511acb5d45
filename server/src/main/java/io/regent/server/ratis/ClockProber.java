package io.regent.server.ratis;

import io.regent.server.concurrent.Daemons;
import io.regent.server.concurrent.NodeExecutors;
import io.regent.server.confirm.ClockRateCheck;
import io.regent.server.confirm.ClockRateWindow;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.impl.RaftClientImpl;
import org.apache.ratis.client.impl.UnorderedAsync;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes every other member's clock (docs/architecture.md §8.1, "clock rates"): every {@link #PROBE_INTERVAL_MS}
 * it sends each one a Ratis stale read ({@link ClockReadings}), which that server answers itself, whatever its
 * role, without a Raft round (Ratis 3.3.0 {@code RaftServerImpl.staleReadAsync} → {@code StateMachine.queryStale};
 * sent unordered, as Ratis's own {@code sendReadOnlyUnordered} is, through {@code UnorderedAsync}),
 * and hands (local send time, local receive time, the peer's reading) to the {@link ClockRateCheck}. Ratis
 * heartbeats carry nothing Regent could add. Every node probes, not only the leader, so that a new leader knows
 * the rates at once.
 *
 * <p>At most one probe per peer is in flight: a peer that does not answer gives no sample until its probe fails
 * (the Ratis client's request timeout), and its rate goes stale meanwhile. The probes use their own Ratis clients,
 * one per peer, without retries, for the group as this node knows it now: a peer's client is replaced after a
 * failed probe (a Ratis client can stay failed after its connection to a peer failed; see {@link RaftClientPool}),
 * and all when that group changes.
 */
public final class ClockProber implements AutoCloseable {
  /** How often each peer is probed, ms: four probes per staleness timeout of {@code ClockRateRule.DEFAULT}. */
  public static final long PROBE_INTERVAL_MS = 500;
  /** How long {@link #close} waits for the client's close, ms (as {@code RaftClientPool.CLOSE_WAIT_MS}). */
  static final long CLOSE_WAIT_MS = 10_000;
  private static final Logger LOG = LoggerFactory.getLogger(ClockProber.class);
  private static final Message PROBE = Message.valueOf(ClockReadings.PROBE);

  private final String self;
  private final Supplier<RaftGroup> group;
  private final Function<RaftGroup, RaftClient> clients;
  private final ClockRateCheck check;
  private final LongSupplier nanoClock;
  private final NodeExecutors executors;
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
  /** Peers whose last probe failed: their client is replaced before the next. */
  private final Set<String> failed = ConcurrentHashMap.newKeySet();
  /** One client per peer, and the group they were built for. Guarded by this. */
  private final Map<String, RaftClient> peerClients = new HashMap<>();
  private RaftGroup clientGroup;
  private ScheduledFuture<?> probes;
  private boolean closed;

  private ClockProber(String self, Supplier<RaftGroup> group, Function<RaftGroup, RaftClient> clients,
                      ClockRateCheck check, LongSupplier nanoClock, NodeExecutors executors) {
    this.self = self;
    this.group = group;
    this.clients = clients;
    this.check = check;
    this.nanoClock = nanoClock;
    this.executors = executors;
  }

  /**
   * Starts probing on the node's scheduler.
   *
   * @param self this node's id
   * @param group the group as this node knows it now ({@link LocalDivision#currentGroup})
   * @param clients builds a Ratis client without retries for a group
   * @param check receives the samples, and reviews the verdicts after each round of probes
   * @param nanoClock this node's monotonic clock, ns: the one its leadership lease is measured on
   */
  public static ClockProber start(String self, Supplier<RaftGroup> group, Function<RaftGroup, RaftClient> clients,
                                  ClockRateCheck check, LongSupplier nanoClock, NodeExecutors executors) {
    ClockProber p = new ClockProber(self, group, clients, check, nanoClock, executors);
    p.probes = executors.timers().scheduleWithFixedDelay(p::probeAll, PROBE_INTERVAL_MS, PROBE_INTERVAL_MS,
        TimeUnit.MILLISECONDS);
    return p;
  }

  /** One round of probes, then a review of the verdicts (tests call it directly). */
  synchronized void probeAll() {
    if (closed) {
      return;
    }
    try {
      RaftGroup now = group.get();
      if (!now.equals(clientGroup)) {
        peerClients.values().forEach(this::retire);
        peerClients.clear();
        clientGroup = now;
      }
      for (String id : failed) {
        failed.remove(id);
        retire(peerClients.remove(id));
      }
      for (RaftPeer peer : now.getPeers()) {
        String id = peer.getId().toString();
        if (!id.equals(self) && inFlight.add(id)) {
          probe(peerClients.computeIfAbsent(id, k -> clients.apply(now)), peer, id);
        }
      }
      check.review();
    } catch (RuntimeException e) {
      // a scheduled task that throws is never run again: keep probing
      LOG.debug("clock probe round failed", e);
    }
  }

  private void probe(RaftClient c, RaftPeer peer, String id) {
    long sent = nanoClock.getAsLong();
    CompletableFuture<RaftClientReply> reply;
    try {
      // unordered: AsyncApi.sendStaleRead goes through the client's ordered sliding window (Ratis 3.3.0
      // OrderedAsync), where one failed probe held every later one to that peer; minimum index -1: a node that
      // has committed nothing yet (commit index -1) answers too
      reply = UnorderedAsync.send(RaftClientRequest.staleReadRequestType(-1), PROBE, peer.getId(),
          (RaftClientImpl) c);
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    reply.whenComplete((r, err) -> {
      long received = nanoClock.getAsLong(); // read first: the hand-off below only widens the error bars
      try {
        executors.replies().execute(() -> answered(id, sent, received, r, err));
      } catch (RejectedExecutionException stopped) {
        inFlight.remove(id);
      }
    });
  }

  private void answered(String id, long sent, long received, RaftClientReply r, Throwable err) {
    try {
      if (err != null || !r.isSuccess()) {
        // a Ratis client whose connection to a peer failed can stay failed (closed stream): replace it
        failed.add(id);
        LOG.debug("clock probe of {} failed: {}", id, err != null ? err.toString() : r.getException());
        return;
      }
      ClockReadings.Reading reading = ClockReadings.decode(r.getMessage());
      check.sample(id, reading.boot(), new ClockRateWindow.Sample(sent, received, reading.nanos()));
    } catch (RuntimeException e) {
      LOG.debug("clock probe reply of {} unreadable", id, e);
    } finally {
      inFlight.remove(id);
    }
  }

  /** Closes a replaced client on the blocking pool: closing channels to an unreachable peer blocks for seconds. */
  private void retire(RaftClient c) {
    if (c == null) {
      return;
    }
    try {
      executors.blocking().execute(() -> closeQuietly(c));
    } catch (RejectedExecutionException full) {
      closeQuietly(c); // rare: a full pool; the probe task waits this once
    }
  }

  @Override
  public void close() {
    probes.cancel(false);
    List<Runnable> closes = new ArrayList<>();
    synchronized (this) {
      closed = true;
      peerClients.values().forEach(c -> closes.add(() -> closeQuietly(c)));
      peerClients.clear();
    }
    try {
      if (!Daemons.runAll("regent-clock-probe-close", closes, CLOSE_WAIT_MS)) {
        LOG.warn("{} clock probe clients not closed after {} ms; their closes go on", closes.size(), CLOSE_WAIT_MS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(RaftClient c) {
    try {
      c.close();
    } catch (IOException | RuntimeException e) {
      LOG.debug("closing the clock probe client failed", e);
    }
  }
}
