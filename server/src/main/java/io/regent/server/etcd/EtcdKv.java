package io.regent.server.etcd;

import io.regent.server.api.StateReader;
import io.regent.server.replication.EntryFormat;
import io.regent.server.replication.Proposer;

/**
 * What the etcd port's KV needs of its node (docs/migrating.md "etcd's KV").
 *
 * @param proposer where its writes go (the node's client proposer)
 * @param format the entry version every voter applies: KV writes need {@code io.regent.statemachine.apply.EntryCodec
 *     .KV_VERSION}
 * @param reader the API's read path: linearizable ranges, or serializable ones
 */
public record EtcdKv(Proposer proposer, EntryFormat format, StateReader reader) {
}
