package io.regent.jepsen.workload;

import io.regent.jepsen.client.ClientPool;
import io.regent.jepsen.client.ClientProcess;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * {@code etcdctl-lock}: the lease-exclusivity workload with etcd's own client as the lock: each process takes one
 * of two locks with {@code etcdctl lock} ({@link EtcdctlLock}) through every node's etcd port, holds it for
 * 0.3–1.5 s, then ends it. History: {@code :acquire} (value: the lock's revision, its fencing token; {@code :info}
 * when etcdctl did not lock within the operation timeout, which retires the process) and, at the end of each hold,
 * an instant {@code :release} whose {@code :held [start end]} is the interval in which the process believed it
 * held the lock: from reading etcdctl's {@code locked} line to ending its command. Checked by the exclusivity
 * checker (no two processes' intervals for one lock overlap) and the tokens' order (each lock's tokens grow from
 * hold to hold): jepsen/README.md "etcdctl lock".
 *
 * <p>Negative control: each process locks a name of its own ({@code NAME-pP}) while its beliefs are still
 * recorded for NAME, so holds of one name overlap as soon as two processes hold at once: the run must come out
 * invalid.
 */
public final class EtcdctlLockWorkload implements Workload {
  /**
   * The session lease's TTL, s. Longer than it takes etcd's client to move its keepalives off a frozen node (gRPC
   * keepalive 2 s + timeout 6 s, etcdctl's defaults), so that a holder's lease outlives the run's node faults:
   * etcdctl itself keeps no clock on its lease and would run its command on after the lease ended.
   */
  static final int TTL_SECONDS = 20;
  private final List<String> names = List.of("l0", "l1");
  private final List<String> endpoints;
  private final boolean negativeControl;

  /**
   * @param etcdEndpoints every node's etcd endpoint, host:port
   * @param negativeControl lock a name per process (see the class's comment)
   */
  public EtcdctlLockWorkload(List<String> etcdEndpoints, boolean negativeControl) {
    if (etcdEndpoints.isEmpty()) {
      throw new IllegalArgumentException("the etcdctl-lock workload needs the nodes' etcd ports (not --single-writer)");
    }
    this.endpoints = List.copyOf(etcdEndpoints);
    this.negativeControl = negativeControl;
  }

  @Override
  public String name() {
    return "etcdctl-lock";
  }

  @Override
  public List<String> names() {
    return names;
  }

  @Override
  public ClientPool.Session session(ClientProcess p) {
    return new ClientPool.Session() {
      private EtcdctlLock lock;
      private String name;
      private long token;
      private long since;
      private long holdUntil;

      @Override
      public long step() throws InterruptedException {
        p.gate().await();
        if (lock != null) {
          if (System.nanoTime() - holdUntil < 0) {
            return 20;
          }
          release();
          return 50 + p.random().nextInt(100);
        }
        acquire(names.get(p.random().nextInt(names.size())));
        return 50 + p.random().nextInt(100);
      }

      private void acquire(String n) throws InterruptedException {
        ClientProcess.Invocation inv = p.invoke("acquire", n, null);
        EtcdctlLock l;
        try {
          l = EtcdctlLock.start(endpoints, negativeControl ? n + "-" + p.name() : n, TTL_SECONDS);
        } catch (IOException e) {
          inv.fail("etcdctl did not start: " + e.getMessage());
          return;
        }
        OptionalLong rev = l.awaitLocked(p.opTimeout());
        if (rev.isEmpty()) {
          l.end();
          // it may have locked as it was ended: unknown, and this process never acted on it
          inv.info("etcdctl did not lock within " + p.opTimeout().toMillis() + " ms: " + l.output());
          return;
        }
        since = System.nanoTime();
        lock = l;
        name = n;
        token = rev.getAsLong();
        holdUntil = since + 1_000_000L * (300 + p.random().nextInt(1200));
        inv.ok(token);
      }

      /** Ends the belief, then the hold. */
      private void release() throws InterruptedException {
        long end = System.nanoTime();
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("held", new ArrayList<>(List.of(p.recorder().relative(since), p.recorder().relative(end))));
        p.instant("release", name, token, extra);
        lock.end();
        lock = null;
      }

      @Override
      public boolean holding() {
        return lock != null;
      }

      @Override
      public void close() {
        try {
          if (lock != null) {
            release();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          if (lock != null) {
            lock.close();
          }
        }
      }
    };
  }

  @Override
  public void finalReads(ClientProcess p) {
    // the checks read the holds themselves; etcd's KV is read through etcd's clients in the etcd-compat tests
  }
}
