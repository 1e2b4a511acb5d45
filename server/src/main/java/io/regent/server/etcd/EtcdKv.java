package io.regent.server.etcd;

import io.grpc.Status;
import io.regent.server.api.RequestId;
import io.regent.server.api.StateReader;
import io.regent.server.api.StatusCodes;
import io.regent.server.replication.EntryFormat;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.replica.ReplicaView;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What the etcd port's KV, Watch, Election and Lock need of their node (docs/migrating.md "etcd's KV", "etcd's
 * Watch", "etcd's Election and Lock").
 *
 * @param proposer where its writes go (the node's client proposer)
 * @param format the entry version every voter applies: KV writes need {@code io.regent.statemachine.apply.EntryCodec
 *     .KV_VERSION}
 * @param reader the API's read path: linearizable ranges, or serializable ones
 * @param replica this node's replica: the watch history and the apply hook that says when it grew
 * @param blocking the node's blocking pool, where watch streams read the history
 * @param timers the node's scheduler, which times progress notifications
 */
public record EtcdKv(Proposer proposer, EntryFormat format, StateReader reader, ReplicaView replica,
                     Executor blocking, ScheduledExecutorService timers) {
  /**
   * Proposes the keyspace write {@code entry} with a request id of this node's (so that its re-sends apply once),
   * once every voter applies version 5; the future fails with the status of a refusal ({@link StatusCodes}).
   *
   * @throws io.grpc.StatusRuntimeException FAILED_PRECONDITION while a voter applies no version 5 (a rolling
   *     upgrade under way)
   */
  CompletableFuture<Result> write(LogEntry.Builder entry) {
    int writable = format.writable();
    if (writable < EntryCodec.KV_VERSION) {
      throw Status.FAILED_PRECONDITION.withDescription("etcd's KV writes need every voter on a build that applies "
          + "log-entry version " + EntryCodec.KV_VERSION + "; the voters agree on version " + writable
          + " (a rolling upgrade under way? docs/operations.md \"Upgrades\")").asRuntimeException();
    }
    return proposer.propose(RequestId.own().stamp(entry)).thenApply(StatusCodes::check);
  }
}
