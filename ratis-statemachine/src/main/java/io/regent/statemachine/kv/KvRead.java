package io.regent.statemachine.kv;

import com.google.protobuf.ByteString;
import io.regent.statemachine.proto.KvAnswer;
import io.regent.statemachine.proto.KvRange;
import io.regent.statemachine.proto.KvRecord;
import io.regent.statemachine.store.KvTable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * etcd's Range on the keyspace as it stands (docs/migrating.md "etcd's KV"), for a read and for a Txn's range
 * alike: the keys of the range, filtered by the mod and create revision bounds, sorted (ascending by the target
 * when a target other than the key is given without an order, as etcd does), cut at {@code limit} with
 * {@code more} set; {@code count} is the number of keys in the range before the filters and the limit, as etcd's.
 */
public final class KvRead {
  /** etcd's {@code RangeRequest.SortOrder}: none, ascend, descend. */
  static final int NONE = 0;
  static final int ASCEND = 1;
  static final int DESCEND = 2;

  private KvRead() {
  }

  /** Answers {@code r} from {@code kv}. The caller has checked the sort order and target (0..2, 0..4). */
  public static KvAnswer.Builder range(KvTable kv, KvRange r) {
    List<KvRecord> all = KeyRanges.records(kv, r.getKey(), r.getRangeEnd());
    KvAnswer.Builder out = KvAnswer.newBuilder().setCount(all.size());
    if (r.getCountOnly()) {
      return out;
    }
    List<KvRecord> kept = new ArrayList<>();
    for (KvRecord rec : all) {
      if (within(rec.getModRevision(), r.getMinModRevision(), r.getMaxModRevision())
          && within(rec.getCreateRevision(), r.getMinCreateRevision(), r.getMaxCreateRevision())) {
        kept.add(rec);
      }
    }
    int order = r.getSortOrder() == NONE && r.getSortTarget() != 0 ? ASCEND : r.getSortOrder();
    if (order != NONE) {
      Comparator<KvRecord> by = target(r.getSortTarget());
      kept.sort(order == DESCEND ? by.reversed() : by);
    }
    if (r.getLimit() > 0 && kept.size() > r.getLimit()) {
      kept = kept.subList(0, (int) r.getLimit());
      out.setMore(true);
    }
    for (KvRecord rec : kept) {
      out.addKvs(r.getKeysOnly() ? rec.toBuilder().clearValue().build() : rec);
    }
    return out;
  }

  private static boolean within(long v, long min, long max) {
    return (min == 0 || v >= min) && (max == 0 || v <= max);
  }

  /** etcd's {@code RangeRequest.SortTarget}: key, version, create, mod, value; ties keep key order. */
  private static Comparator<KvRecord> target(int target) {
    return switch (target) {
      case 1 -> Comparator.comparingLong(KvRecord::getVersion);
      case 2 -> Comparator.comparingLong(KvRecord::getCreateRevision);
      case 3 -> Comparator.comparingLong(KvRecord::getModRevision);
      case 4 -> Comparator.comparing(KvRecord::getValue, KvRead::compareBytes);
      default -> Comparator.comparing(KvRecord::getKey, KvRead::compareBytes);
    };
  }

  private static int compareBytes(ByteString a, ByteString b) {
    return ByteString.unsignedLexicographicalComparator().compare(a, b);
  }
}
