package io.regent.server.cell;

import io.regent.server.concurrent.NodeExecutors;
import io.regent.server.config.ServerConfig;
import io.regent.server.lease.Lessor;
import io.regent.server.placement.LeaseIds;
import io.regent.server.storage.CellDir;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.ratis.ApplyObserver;
import io.regent.statemachine.ratis.RegentStateMachine;

/**
 * A cell's state machine and the leader-side lease clock it keeps: built before the node's Ratis server, which
 * asks for each cell's state machine as it builds (docs/architecture.md §14).
 *
 * @param lessor the cell's leader-side lease clock
 * @param machine the cell's state machine over its own LMDB environment
 */
public record CellReplica(Lessor lessor, RegentStateMachine machine) {
  /** Events each cell keeps so that Observe streams can resume after an index. */
  static final int EVENT_HISTORY = 10_000;
  /** How often the cell's leader checks lease deadlines, ms. */
  static final long EXPIRY_SCAN_MS = 50;
  /** How often the cell's leader checkpoints each long lease's remaining time, ms (docs/architecture.md §3). */
  static final long CHECKPOINT_INTERVAL_MS = 500;

  /**
   * Builds cell {@code dir.cell()}'s lessor and state machine; opens nothing yet (Ratis initializes the machine).
   *
   * @param observer told of each entry the cell applies (metrics)
   */
  public static CellReplica of(CellDir dir, ServerConfig config, ApplyObserver observer, NodeExecutors executors) {
    Lessor lessor = new Lessor(System::nanoTime, executors.timers(), EXPIRY_SCAN_MS, CHECKPOINT_INTERVAL_MS);
    RegentStateMachine sm = new RegentStateMachine(dir.lmdb(), lessor, new EventHub(EVENT_HISTORY), observer,
        config.unsafeSkipRelease());
    sm.setMaxEntryVersion(config.maxEntryVersion());
    sm.setLeaseIdBase(LeaseIds.base(dir.cell()));
    return new CellReplica(lessor, sm);
  }
}
