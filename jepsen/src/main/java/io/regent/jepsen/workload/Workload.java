package io.regent.jepsen.workload;

import io.regent.jepsen.client.ClientPool;
import io.regent.jepsen.client.ClientProcess;
import java.util.List;

/**
 * A workload: what each logical process does during the test, and the final reads once the cluster
 * has healed. Checking is done from the history alone (see {@code io.regent.jepsen.runner.HistoryChecks}),
 * so a stored history can be re-checked without the cluster.
 */
public interface Workload extends AutoCloseable {
  /** The workload's name: {@code election}, {@code lease-exclusivity} or {@code ledger}. */
  String name();

  /** The names clients campaign for (final reads cover each). */
  List<String> names();

  /** A new session for a new process. */
  ClientPool.Session session(ClientProcess p);

  /** The final reads, by a fresh process, after the cluster has healed and recovered. */
  void finalReads(ClientProcess p);

  /** Releases what the workload started (e.g. the ledger server). */
  @Override
  default void close() throws Exception {
  }
}
