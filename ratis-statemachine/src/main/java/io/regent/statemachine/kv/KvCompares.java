package io.regent.statemachine.kv;

import com.google.protobuf.ByteString;
import io.regent.statemachine.proto.KvCompare;
import io.regent.statemachine.proto.KvRecord;
import io.regent.statemachine.store.KvTable;
import java.util.List;

/**
 * etcd's Txn compares (docs/migrating.md "etcd's KV"): a compare holds for a range when it holds for every key in
 * it; a key that does not exist compares as version, create and mod revision 0 and lease 0, and fails every
 * compare on its value, as in etcd.
 */
final class KvCompares {
  /** etcd's {@code Compare.CompareTarget}. */
  private static final int VERSION = 0;
  private static final int CREATE = 1;
  private static final int MOD = 2;
  private static final int VALUE = 3;
  /** etcd's {@code Compare.CompareResult}. */
  private static final int EQUAL = 0;
  private static final int GREATER = 1;
  private static final int LESS = 2;

  private KvCompares() {
  }

  /** Whether {@code c} holds in {@code kv}. */
  static boolean holds(KvTable kv, KvCompare c) {
    List<KvRecord> recs = KeyRanges.records(kv, c.getKey(), c.getRangeEnd());
    if (recs.isEmpty()) {
      return c.getTarget() != VALUE && holds(KvRecord.getDefaultInstance(), c);
    }
    return recs.stream().allMatch(r -> holds(r, c));
  }

  private static boolean holds(KvRecord r, KvCompare c) {
    int cmp = switch (c.getTarget()) {
      case VERSION -> Long.compare(r.getVersion(), c.getNumber());
      case CREATE -> Long.compare(r.getCreateRevision(), c.getNumber());
      case MOD -> Long.compare(r.getModRevision(), c.getNumber());
      case VALUE -> ByteString.unsignedLexicographicalComparator().compare(r.getValue(), c.getValue());
      default -> Long.compare(r.getLease(), c.getNumber());
    };
    return switch (c.getResult()) {
      case EQUAL -> cmp == 0;
      case GREATER -> cmp > 0;
      case LESS -> cmp < 0;
      default -> cmp != 0;
    };
  }
}
