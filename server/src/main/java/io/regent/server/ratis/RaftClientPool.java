package io.regent.server.ratis;

import io.regent.server.concurrent.Daemons;
import io.regent.server.concurrent.NodeExecutors;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftPeerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis clients a node forwards its proposals through: several, used in turn, and each replaced by a
 * fresh one after a failure.
 *
 * <p>Why several: one Ratis client is one ordered gRPC stream to the leader, and its sliding window makes
 * unrelated proposals wait for each other; docs/ratis.md §13: 4 230 → 5 812 writes/s at 64 in-flight
 * requests with 8 connections instead of 1. Why replace: after a node was cut off or the leader was killed, a
 * client could stay failed (closed stream, cached connection error, stale leader) and answer every later
 * proposal with an error until the process restarted (seen in the Jepsen runs). A replacement is built
 * from the group's current configuration, so it also follows membership changes. The failed client is
 * closed only after {@code closeDelayMs}, so proposals still in flight on it can finish: the node's scheduler
 * waits out the delay, its blocking pool closes the client (closing a channel to an unreachable leader
 * blocks for seconds; docs/architecture.md §10).
 *
 * <p>Why follow the leader: a Ratis client sends to the leader it last knew. When that leader is paused or cut
 * off, each attempt waits out the request timeout (3 s) and closing its channel blocks another 3 s before
 * the client tries the next peer, although this node may have learnt the new leader long before (a pause of
 * the leader: 9.4 s for one grant through a follower, measured). {@link #followLeader} replaces every client
 * with one that starts at the new leader, so proposals made after the change go straight to it, and the
 * proposals in flight on a replaced client are resent through its replacement ({@link #whenReplaced};
 * docs/ratis.md §10).
 */
public final class RaftClientPool implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RaftClientPool.class);
  /**
   * How long {@link #close} waits for its clients' closes, ms. A Ratis client closes the channels to its peers in
   * parallel, each in at most 3 s (graceful) + 2 s (forced) and its admin channel after its client channel when
   * they differ (Ratis {@code GrpcUtil.shutdownManagedChannel}): 10 s covers one client, and the clients close
   * in parallel.
   */
  static final long CLOSE_WAIT_MS = 10_000;

  private final Function<RaftPeerId, RaftClient> factory;
  private final AtomicReferenceArray<RaftClient> clients;
  private final AtomicInteger next = new AtomicInteger();
  private volatile RaftPeerId leader;
  private final long closeDelayMs;
  private final NodeExecutors executors;
  private final long closeWaitMs;
  /** Replaced clients not closed yet: {@link #close} closes them at once. */
  private final Set<RaftClient> retired = ConcurrentHashMap.newKeySet();
  /** Per client in a slot: what {@link #whenReplaced} runs when it is replaced (the entry goes with it). */
  private final Map<RaftClient, Set<Runnable>> onReplaced = new ConcurrentHashMap<>();

  /**
   * @param size number of clients, at least 1
   * @param factory builds a client for the group as currently configured, sending first to the given leader
   *     ({@code null}: not known, Ratis picks a peer)
   * @param closeDelayMs how long a replaced client stays open for its in-flight proposals, ms
   * @param executors the node's: its scheduler waits out the delay, its blocking pool closes (but {@link #close}
   *     needs neither)
   */
  public RaftClientPool(int size, Function<RaftPeerId, RaftClient> factory, long closeDelayMs,
                        NodeExecutors executors) {
    this(size, factory, closeDelayMs, executors, CLOSE_WAIT_MS);
  }

  /** As above, with {@link #close} waiting up to {@code closeWaitMs} (tests). */
  RaftClientPool(int size, Function<RaftPeerId, RaftClient> factory, long closeDelayMs, NodeExecutors executors,
                 long closeWaitMs) {
    if (size < 1) {
      throw new IllegalArgumentException("pool size " + size + " < 1");
    }
    this.factory = factory;
    this.closeDelayMs = closeDelayMs;
    this.executors = executors;
    this.closeWaitMs = closeWaitMs;
    this.clients = new AtomicReferenceArray<>(size);
    for (int i = 0; i < size; i++) {
      RaftClient c = factory.apply(null);
      onReplaced.put(c, ConcurrentHashMap.newKeySet());
      clients.set(i, c);
    }
  }

  /** A slot to propose through, round robin. */
  int nextSlot() {
    return Math.floorMod(next.getAndIncrement(), clients.length());
  }

  /** The client in {@code slot} now. */
  RaftClient client(int slot) {
    return clients.get(slot);
  }

  /**
   * Runs {@code action} once when {@code client} is replaced (a new leader, or a failure), at once if it already
   * was, unless the returned handle is run first. For the proposals in flight on it: a client aimed at a frozen
   * leader holds them until the proposal timeout (10 s) although the new leader answers at once (issue #40).
   *
   * @param action must not block: it runs on the thread that replaces the client
   * @return cancels the action (for a proposal answered meanwhile, so no action stays behind on a long-lived client)
   */
  Runnable whenReplaced(RaftClient client, Runnable action) {
    Set<Runnable> actions = onReplaced.get(client);
    if (actions == null) {
      action.run();
      return () -> { };
    }
    actions.add(action);
    // replaced between the get and the add: the replacement's drain may have missed it; whoever removes it runs it
    if (!onReplaced.containsKey(client) && actions.remove(action)) {
      action.run();
    }
    return () -> actions.remove(action);
  }

  /**
   * Points every client at {@code newLeader}, the leader the local Raft server now follows (or is): clients
   * are replaced, the old ones closed after the close delay. Nothing happens if it is the leader already
   * followed or {@code null} (no leader known, e.g. during an election). Called by one
   * {@link ClientLeaderTracker} poll at a time, so the check and the update of the followed leader need no lock.
   *
   * @return whether the followed leader changed
   */
  public boolean followLeader(RaftPeerId newLeader) {
    RaftPeerId old = leader;
    if (newLeader == null || newLeader.equals(old)) {
      return false;
    }
    leader = newLeader;
    if (old != null) {
      LOG.info("leader is now {} (was {}): proposals go to it", newLeader, old);
    }
    renewAll();
    return true;
  }

  /**
   * Replaces every client with a fresh one aimed at the followed leader, the old ones closed after the close
   * delay. For this node becoming the ready leader: a client whose proposal got a leader-not-ready reply can
   * hold later proposals for seconds (docs/ratis.md §10).
   */
  public void renewAll() {
    for (int slot = 0; slot < clients.length(); slot++) {
      replace(slot, clients.get(slot));
    }
  }

  /** Replaces {@code failed} in {@code slot}, unless another failure already did. */
  void replace(int slot, RaftClient failed) {
    if (clients.get(slot) != failed) {
      return; // several proposals failed on it: the first replaced it
    }
    RaftClient fresh;
    try {
      fresh = factory.apply(leader);
    } catch (RuntimeException e) {
      LOG.warn("cannot build a Ratis client; keeping the failed one for now", e);
      return;
    }
    onReplaced.put(fresh, ConcurrentHashMap.newKeySet());
    if (clients.compareAndSet(slot, failed, fresh)) {
      retired.add(failed);
      closeLater(failed);
      Set<Runnable> actions = onReplaced.remove(failed);
      if (actions != null) {
        for (Runnable a : actions) {
          if (actions.remove(a)) {
            a.run();
          }
        }
      }
    } else {
      onReplaced.remove(fresh);
      closeQuietly(fresh);
    }
  }

  /** Closes {@code c} on the blocking pool after the close delay; if the pool is full, after another delay. */
  private void closeLater(RaftClient c) {
    try {
      executors.timers().schedule(() -> {
        try {
          executors.blocking().execute(() -> {
            if (retired.remove(c)) {
              closeQuietly(c);
            }
          });
        } catch (RejectedExecutionException full) {
          closeLater(c);
        }
      }, closeDelayMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stopped) {
      LOG.debug("the node's executors are stopped: the pool's close closes the client");
    }
  }

  /**
   * Closes every client this pool still owns, the replaced ones waiting for their close delay included, all at
   * once on threads of this close ({@link Daemons#runAll}), and returns when they are closed or after
   * {@link #CLOSE_WAIT_MS} (a close still blocked on an unreachable peer then finishes alone). It needs none of
   * the node's executors, which the node stops right after (docs/architecture.md §10).
   */
  @Override
  public void close() {
    List<Runnable> closes = new ArrayList<>();
    for (int i = 0; i < clients.length(); i++) {
      RaftClient c = clients.get(i);
      closes.add(() -> closeQuietly(c));
    }
    for (RaftClient c : retired) {
      if (retired.remove(c)) { // else its delayed close has it
        closes.add(() -> closeQuietly(c));
      }
    }
    try {
      if (!Daemons.runAll("regent-raft-client-close", closes, closeWaitMs)) {
        LOG.warn("{} Ratis clients not closed after {} ms; their closes go on", closes.size(), closeWaitMs);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the closes go on
    }
  }

  private static void closeQuietly(RaftClient c) {
    try {
      c.close();
    } catch (IOException | RuntimeException e) {
      LOG.debug("closing a Ratis client failed", e);
    }
  }
}
