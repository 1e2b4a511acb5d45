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
  /** The workload's name: one of {@link Workloads#NAMES}. */
  String name();

  /** The names clients campaign for (final reads cover each). */
  List<String> names();

  /** A new session for a new process. */
  ClientPool.Session session(ClientProcess p);

  /**
   * A phase after the faults healed and the cluster recovered, while every client's session is still open
   * (parked), by a fresh process: the ownership workload's quiet membership. Nothing by default.
   */
  default void quiet(ClientProcess p) throws InterruptedException {
  }

  /** The final reads, by a fresh process, after the cluster has healed and recovered. */
  void finalReads(ClientProcess p);

  /** Releases what the workload started (e.g. the ledger server). */
  @Override
  default void close() throws Exception {
  }
}
