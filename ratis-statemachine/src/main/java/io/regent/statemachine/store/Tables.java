package io.regent.statemachine.store;

import java.util.List;
import org.lmdbjava.Dbi;

/**
 * The named LMDB databases of Regent's state (docs/architecture.md §2): {@code meta} (applied index, member records,
 * groups, counters), {@code leases}, {@code names}, and the request records ({@code requests} by id,
 * {@code request-order} by their place in the retention order; {@link RequestTable}), and etcd's keyspace
 * ({@code kv} by key, {@code kv-lease} by lease; {@link KvTable}) with its watch history ({@code kv-history} by
 * revision; {@link KvHistory}).
 */
record Tables(Dbi<byte[]> meta, Dbi<byte[]> leases, Dbi<byte[]> names, Dbi<byte[]> requests,
              Dbi<byte[]> requestOrder, Dbi<byte[]> kv, Dbi<byte[]> kvLease,
              Dbi<byte[]> kvHistory) {
  /** Every table, in a fixed order: what a replica's content is ({@link StateTxn#contentDigest()}). */
  List<Dbi<byte[]>> all() {
    return List.of(meta, leases, names, requests, requestOrder, kv, kvLease, kvHistory);
  }
}
