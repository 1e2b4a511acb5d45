package io.regent.server.etcd;

import io.regent.server.api.StateReader;
import io.regent.server.replication.EntryFormat;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.replica.ReplicaView;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What the etcd port's KV and Watch need of their node (docs/migrating.md "etcd's KV", "etcd's Watch").
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
}
