package io.regent.server.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.replica.ReplicaView;
import java.util.concurrent.TimeUnit;

/**
 * The gauges of one cell's replicated state on a node, tagged {@code cell}: leases, held names, waiting candidates,
 * request records, etcd's keyspace and its kept history. They are counted from the cell's LMDB in one read
 * transaction at scrape time, and that count serves every gauge for {@value #CACHE_MS} ms (a scrape reads them all).
 */
final class StateGauges {
  /** How long one reading of the LMDB state counts serves the gauges, ms. */
  static final long CACHE_MS = 1000;

  private final ReplicaView view;
  private volatile Counts counts;

  private StateGauges(ReplicaView view) {
    this.view = view;
  }

  /** Registers the gauges of cell {@code cell}, read from {@code view}, on {@code registry}. */
  static void bind(MeterRegistry registry, ReplicaView view, int cell) {
    StateGauges g = new StateGauges(view);
    Tags tags = Tags.of("cell", String.valueOf(cell));
    Gauge.builder("regent.leases.live", () -> g.counts().leases).tags(tags)
        .description("Leases in this node's state").register(registry);
    Gauge.builder("regent.names.held", () -> g.counts().held).tags(tags)
        .description("Names (elections and locks) with a holder in this node's state").register(registry);
    Gauge.builder("regent.candidates.waiting", () -> g.counts().waiting).tags(tags)
        .description("Candidates queued behind a holder, summed over names").register(registry);
    Gauge.builder("regent.request.records", () -> g.counts().requests).tags(tags)
        .description("Stored answers to request ids (docs/api.md, request ids), at most 100 000").register(registry);
    Gauge.builder("regent.request.record.bytes", () -> g.counts().requestBytes).tags(tags)
        .description("Bytes of the stored answers to request ids, at most 32 MiB").register(registry);
    Gauge.builder("regent.kv.keys", () -> g.counts().kvKeys).tags(tags)
        .description("Keys in etcd's keyspace in this node's state (docs/migrating.md, etcd's KV)").register(registry);
    Gauge.builder("regent.kv.bytes", () -> g.counts().kvBytes).tags(tags)
        .description("Bytes of LMDB pages etcd's keyspace takes in this node's state").register(registry);
    Gauge.builder("regent.kv.history.revisions", () -> g.counts().historyRevisions).tags(tags)
        .description("Revisions of etcd's keyspace whose watch events are kept (docs/migrating.md, etcd's Watch), "
            + "at most 10 000").register(registry);
    Gauge.builder("regent.kv.history.bytes", () -> g.counts().historyBytes).tags(tags)
        .description("Bytes of the kept watch events of etcd's keyspace, at most 64 MiB").register(registry);
  }

  private Counts counts() {
    Counts c = counts;
    long now = System.nanoTime();
    if (c == null || now - c.at > TimeUnit.MILLISECONDS.toNanos(CACHE_MS)) {
      c = view.read(txn -> {
        long held = 0;
        long waiting = 0;
        for (NameRecord n : txn.allNames()) {
          held += n.hasHolder() ? 1 : 0;
          waiting += n.getCandidatesCount();
        }
        return new Counts(now, txn.allLeases().size(), held, waiting, txn.requests().count(),
            txn.requests().bytes(), txn.kv().count(), txn.kv().bytes(), txn.kvHistory().count(),
            txn.kvHistory().bytes());
      });
      counts = c;
    }
    return c;
  }

  private record Counts(long at, long leases, long held, long waiting, long requests, long requestBytes,
                        long kvKeys, long kvBytes, long historyRevisions, long historyBytes) {
  }
}
