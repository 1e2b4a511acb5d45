package io.regent.statemachine.kv;

import com.google.protobuf.ByteString;
import io.regent.statemachine.proto.KvRecord;
import io.regent.statemachine.store.KvTable;
import java.util.List;

/**
 * etcd's key ranges (docs/migrating.md "etcd's KV"): an empty {@code range_end} is the key alone, {@code "\0"} every
 * key from {@code key} on, anything else the keys in [{@code key}, {@code range_end}) in byte order.
 */
final class KeyRanges {
  private static final ByteString ALL_FROM = ByteString.copyFrom(new byte[] {0});

  private KeyRanges() {
  }

  /** The records of the keys in the range, in key order. */
  static List<KvRecord> records(KvTable kv, ByteString key, ByteString rangeEnd) {
    if (rangeEnd.isEmpty()) {
      KvRecord rec = kv.get(key.toByteArray());
      return rec == null ? List.of() : List.of(rec);
    }
    return kv.range(key.toByteArray(), rangeEnd.equals(ALL_FROM) ? null : rangeEnd.toByteArray());
  }
}
