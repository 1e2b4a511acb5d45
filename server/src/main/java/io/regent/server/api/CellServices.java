package io.regent.server.api;

import io.grpc.protobuf.services.HealthStatusManager;
import io.regent.server.concurrent.NodeExecutors;
import io.regent.server.limits.Admission;
import io.regent.server.limits.LeaseQuota;
import io.regent.server.limits.ServerLimits;
import io.regent.server.replication.Cleanups;
import java.util.function.Supplier;

/**
 * The API's services over one cell (docs/architecture.md §14): Lease, Election, Lock and Group as a node without
 * cells serves them, built on the cell's replica, proposer and confirmations. With one cell they are the services
 * the API registers; with more, the routing services pick one per call.
 */
final class CellServices {
  final HealthReporter health;
  final StateReader reader;
  final LeaseService lease;
  final ElectionService election;
  final LockService lock;
  final GroupService group;

  /**
   * @param quota the per-connection lease counts, shared by every cell (a connection's limit counts all of them)
   * @param leader the leader the node's replies name, for keepalive streams to follow it
   * @param clock stamps each renewal's answer with this node's monotonic clock
   */
  CellServices(CellBackend cell, HealthStatusManager healthStatus, long minTtlMs, boolean unsafeLocalGrants,
               ServerLimits limits, Admission admission, LeaseQuota quota, Attempts attempts, Cleanups cleanups,
               NodeExecutors executors, Supplier<NamedLeader> leader, NodeClock clock) {
    var blocking = executors.blocking();
    var sm = cell.replica();
    this.health = new HealthReporter(cell.cluster(), healthStatus, sm::appliedIndex);
    this.reader = new StateReader(cell.confirmer(), sm, blocking, health);
    LeaseGrants grants = new LeaseGrants(minTtlMs, limits, quota, admission.leaseQuota(), admission.nameQuota(), sm,
        blocking);
    Campaigns campaigns = new Campaigns(cell.proposer(), sm.hub(),
        unsafeLocalGrants ? new UnsafeLocalGrants(sm) : null, limits, grants, admission.nameQuota(), blocking,
        attempts, cleanups);
    sm.hub().listen(quota);
    sm.hub().listen(admission.leaseQuota());
    sm.hub().listen(admission.nameQuota());
    this.lease = new LeaseService(cell.proposer(), cell.confirmer(), reader, grants, leader, clock);
    this.election = new ElectionService(campaigns, new ObserveStreams(reader, sm.hub(), blocking,
        limits.observeBuffer(), limits.maxObservers()), reader, cell.proposer(),
        new CampaignAllCall(cell.proposer(), sm.hub(), limits, admission.nameQuota(), blocking, attempts, cleanups));
    this.lock = new LockService(campaigns, cell.proposer());
    this.group = new GroupService(cell.proposer(), reader, sm, blocking, minTtlMs, limits.maxObservers());
  }
}
