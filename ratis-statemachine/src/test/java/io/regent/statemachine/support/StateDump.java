package io.regent.statemachine.support;

import com.google.protobuf.TextFormat;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.store.StateTxn;

/**
 * Canonical text of a replica's state: the applied index, then every lease in id order, then every name
 * (holder and FIFO candidates) in key order, groups, and etcd's keys in key order with the compaction point and
 * the watch history by revision with its floor.
 * Two replicas hold the same state iff their dumps are equal.
 */
public final class StateDump {
  private StateDump() {
  }

  /** The whole state, applied index included. */
  public static String of(StateTxn txn) {
    return "appliedIndex=" + txn.appliedIndex() + "\n" + tables(txn);
  }

  /** The lease and name tables only: what an entry may change besides the applied index. */
  public static String tables(StateTxn txn) {
    StringBuilder out = new StringBuilder();
    for (LeaseRecord lease : txn.allLeases()) {
      out.append("lease ").append(TextFormat.shortDebugString(lease)).append('\n');
    }
    for (NameRecord name : txn.allNames()) {
      out.append("name ").append(TextFormat.shortDebugString(name)).append('\n');
    }
    txn.allGroups().forEach(g -> out.append("group ").append(TextFormat.shortDebugString(g)).append('\n'));
    txn.kv().range(new byte[] {0}, null)
        .forEach(kv -> out.append("kv ").append(TextFormat.shortDebugString(kv)).append('\n'));
    if (txn.kv().compacted() != 0) {
      out.append("kv compacted ").append(txn.kv().compacted()).append('\n');
    }
    txn.kvHistory().read(0, Long.MAX_VALUE, Integer.MAX_VALUE).forEach(r -> out.append("kv-history ")
        .append(r.revision()).append(' ').append(r.events().stream().map(TextFormat::shortDebugString).toList())
        .append('\n'));
    if (txn.kvHistory().floor() != 0) {
      out.append("kv-history floor ").append(txn.kvHistory().floor()).append('\n');
    }
    return out.toString();
  }
}
