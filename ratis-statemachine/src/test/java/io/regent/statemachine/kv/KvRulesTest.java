package io.regent.statemachine.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.KvCompact;
import io.regent.statemachine.proto.KvCompare;
import io.regent.statemachine.proto.KvDeleteRange;
import io.regent.statemachine.proto.KvOp;
import io.regent.statemachine.proto.KvPut;
import io.regent.statemachine.proto.KvRange;
import io.regent.statemachine.proto.KvRecord;
import io.regent.statemachine.proto.KvTxn;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.support.Entries;
import io.regent.statemachine.support.Replica;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * etcd's keyspace in apply (docs/migrating.md "etcd's KV"): revisions are the indexes of the entries that wrote,
 * create_revision stays while the key lives, a lease takes its keys with it in the entry that ends it, a Txn
 * applies one branch in order or nothing, and every refusal changes nothing.
 */
class KvRulesTest {
  @TempDir
  Path dir;

  static ByteString b(String s) {
    return ByteString.copyFrom(s, StandardCharsets.UTF_8);
  }

  static KvPut.Builder put(String key, String value) {
    return KvPut.newBuilder().setKey(b(key)).setValue(b(value));
  }

  static LogEntry entry(LogEntry.Builder e) {
    return Entries.logged(e);
  }

  static LogEntry putEntry(KvPut.Builder p) {
    return entry(LogEntry.newBuilder().setKvPut(p));
  }

  static KvRecord get(Replica r, String key) {
    return r.read(txn -> txn.kv().get(key.getBytes(StandardCharsets.UTF_8)));
  }

  static List<KvRecord> range(Replica r, KvRange.Builder range) {
    return r.read(txn -> KvRead.range(txn.kv(), range.build()).getKvsList());
  }

  @Test
  void revisionsAreTheIndexesOfTheEntriesThatWrote() {
    try (Replica r = Replica.open(dir)) {
      long created = r.nextIndex();
      Result first = r.apply(putEntry(put("a", "1"))).result();
      assertThat(first.getCode()).isEqualTo(Code.OK);
      assertThat(first.getIndex()).isEqualTo(created);
      assertThat(get(r, "a")).extracting(KvRecord::getCreateRevision, KvRecord::getModRevision, KvRecord::getVersion)
          .containsExactly(created, created, 1L);

      r.grantLease(); // another entry between the two puts: revisions are indexes, not a counter of KV writes
      long modified = r.nextIndex();
      Result second = r.apply(putEntry(put("a", "2").setPrevKv(true))).result();
      assertThat(second.getKv().getPrevKv().getValue()).isEqualTo(b("1"));
      assertThat(get(r, "a")).extracting(KvRecord::getCreateRevision, KvRecord::getModRevision, KvRecord::getVersion)
          .containsExactly(created, modified, 2L);

      r.apply(entry(LogEntry.newBuilder().setKvDeleteRange(KvDeleteRange.newBuilder().setKey(b("a")))));
      long again = r.nextIndex();
      r.apply(putEntry(put("a", "3")));
      assertThat(get(r, "a")).extracting(KvRecord::getCreateRevision, KvRecord::getVersion)
          .containsExactly(again, 1L);
    }
  }

  @Test
  void aPutOnALeaseThatIsNotLiveIsRefusedWithEtcdsTextAndChangesNothing() {
    try (Replica r = Replica.open(dir)) {
      r.apply(putEntry(put("k", "v")));
      String before = r.tables();
      Result refused = r.apply(putEntry(put("k", "w").setLease(999))).result();
      assertThat(refused.getCode()).isEqualTo(Code.NOT_FOUND);
      assertThat(refused.getMessage()).isEqualTo("etcdserver: requested lease not found");
      assertThat(r.apply(putEntry(put("", "w"))).result().getMessage()).isEqualTo("etcdserver: key is not provided");
      assertThat(r.apply(putEntry(put("nokey", "").setIgnoreValue(true))).result().getMessage())
          .isEqualTo("etcdserver: key not found");
      assertThat(r.apply(putEntry(put("nokey", "v").setIgnoreLease(true))).result().getMessage())
          .isEqualTo("etcdserver: key not found");
      assertThat(r.tables()).isEqualTo(before);
    }
  }

  @Test
  void theKeysOfALeaseAreDeletedInTheEntryThatRevokesOrExpiresIt() {
    try (Replica r = Replica.open(dir)) {
      long revoked = r.grantLease();
      long expired = r.grantLease();
      r.apply(putEntry(put("lock/a", "x").setLease(revoked)));
      r.apply(putEntry(put("lock/b", "y").setLease(expired)));
      r.apply(putEntry(put("moved", "z").setLease(revoked)));
      r.apply(putEntry(put("moved", "z2"))); // put again without a lease: detached, it outlives the lease
      r.apply(putEntry(put("kept", "k")));

      r.apply(Entries.revoke(revoked));
      assertThat(get(r, "lock/a")).isNull();
      assertThat(get(r, "moved").getValue()).isEqualTo(b("z2"));
      assertThat(get(r, "lock/b")).isNotNull();

      r.apply(Entries.expire(Replica.TERM, expired));
      assertThat(get(r, "lock/b")).isNull();
      assertThat(range(r, KvRange.newBuilder().setKey(b("\0")).setRangeEnd(b("\0"))))
          .extracting(KvRecord::getKey).containsExactly(b("kept"), b("moved"));
    }
  }

  @Test
  void aTxnAppliesTheBranchItsComparesChooseInOrderInOneEntry() {
    try (Replica r = Replica.open(dir)) {
      // Go's concurrency.Mutex: create the key if its create_revision is 0, else read it
      KvTxn lock = KvTxn.newBuilder()
          .addCompares(KvCompare.newBuilder().setKey(b("m/1")).setTarget(1).setResult(0).setNumber(0))
          .addSuccess(KvOp.newBuilder().setPut(put("m/1", "me")))
          .addSuccess(KvOp.newBuilder().setRange(KvRange.newBuilder().setKey(b("m/1"))))
          .addFailure(KvOp.newBuilder().setRange(KvRange.newBuilder().setKey(b("m/1")))).build();
      long index = r.nextIndex();
      Result first = r.apply(entry(LogEntry.newBuilder().setKvTxn(lock))).result();
      assertThat(first.getKv().getSucceeded()).isTrue();
      assertThat(first.getKv().getResponses(1).getKvs(0).getCreateRevision())
          .as("a range after a put in one txn sees it").isEqualTo(index);
      Result second = r.apply(entry(LogEntry.newBuilder().setKvTxn(lock))).result();
      assertThat(second.getKv().getSucceeded()).isFalse();
      assertThat(second.getKv().getResponsesList()).hasSize(1);
      assertThat(get(r, "m/1").getVersion()).isEqualTo(1);

      KvTxn byModAndValue = KvTxn.newBuilder()
          .addCompares(KvCompare.newBuilder().setKey(b("m/1")).setTarget(2).setResult(0).setNumber(index))
          .addCompares(KvCompare.newBuilder().setKey(b("m/1")).setTarget(3).setResult(3).setValue(b("other")))
          .addCompares(KvCompare.newBuilder().setKey(b("m/1")).setTarget(0).setResult(2).setNumber(2))
          .addSuccess(KvOp.newBuilder().setDeleteRange(KvDeleteRange.newBuilder().setKey(b("m/1")))).build();
      assertThat(r.apply(entry(LogEntry.newBuilder().setKvTxn(byModAndValue))).result().getKv().getResponses(0)
          .getDeleted()).isEqualTo(1);
      assertThat(get(r, "m/1")).isNull();
    }
  }

  @Test
  void aTxnWhoseOpIsRefusedAppliesNoneOfItsOps() {
    try (Replica r = Replica.open(dir)) {
      String before = r.tables();
      KvTxn t = KvTxn.newBuilder().addSuccess(KvOp.newBuilder().setPut(put("x", "1")))
          .addSuccess(KvOp.newBuilder().setPut(put("y", "2").setLease(12345))).build();
      Result refused = r.apply(entry(LogEntry.newBuilder().setKvTxn(t))).result();
      assertThat(refused.getCode()).isEqualTo(Code.NOT_FOUND);
      assertThat(r.tables()).isEqualTo(before);
    }
  }

  @Test
  void aRangeFiltersSortsAndLimitsAsEtcdDoes() {
    try (Replica r = Replica.open(dir)) {
      long a = r.nextIndex();
      r.apply(putEntry(put("p/a", "3")));
      long b = r.nextIndex();
      r.apply(putEntry(put("p/b", "1")));
      r.apply(putEntry(put("p/c", "2")));
      r.apply(putEntry(put("q", "0")));
      KvRange.Builder prefix = KvRange.newBuilder().setKey(b("p/")).setRangeEnd(b("p0"));
      assertThat(range(r, prefix.clone())).extracting(KvRecord::getKey).containsExactly(b("p/a"), b("p/b"), b("p/c"));
      var limited = r.read(txn -> KvRead.range(txn.kv(), prefix.clone().setLimit(2).build()));
      assertThat(limited.getKvsCount()).isEqualTo(2);
      assertThat(limited.getMore()).isTrue();
      assertThat(limited.getCount()).isEqualTo(3);
      assertThat(range(r, prefix.clone().setSortTarget(2).setSortOrder(2))).extracting(KvRecord::getKey)
          .as("by create revision, descending").containsExactly(b("p/c"), b("p/b"), b("p/a"));
      assertThat(range(r, prefix.clone().setSortTarget(4))).extracting(KvRecord::getKey)
          .as("a target without an order sorts ascending").containsExactly(b("p/b"), b("p/c"), b("p/a"));
      assertThat(range(r, prefix.clone().setMaxCreateRevision(b))).extracting(KvRecord::getCreateRevision)
          .containsExactly(a, b);
      assertThat(range(r, prefix.clone().setKeysOnly(true))).allMatch(kv -> kv.getValue().isEmpty());
      var counted = r.read(txn -> KvRead.range(txn.kv(), prefix.clone().setCountOnly(true).build()));
      assertThat(counted.getKvsCount()).isZero();
      assertThat(counted.getCount()).isEqualTo(3);
    }
  }

  @Test
  void compactionMovesForwardOnlyAndNotPastItsOwnEntry() {
    try (Replica r = Replica.open(dir)) {
      r.apply(putEntry(put("a", "1")));
      long future = r.nextIndex() + 1;
      Result ahead = r.apply(entry(LogEntry.newBuilder().setKvCompact(KvCompact.newBuilder().setRevision(future))))
          .result();
      assertThat(ahead.getCode()).isEqualTo(Code.OUT_OF_RANGE);
      assertThat(ahead.getMessage()).isEqualTo("etcdserver: mvcc: required revision is a future revision");
      assertThat(r.apply(entry(LogEntry.newBuilder().setKvCompact(KvCompact.newBuilder().setRevision(1)))).result()
          .getCode()).isEqualTo(Code.OK);
      long compacted = r.read(txn -> txn.kv().compacted());
      assertThat(compacted).isEqualTo(1);
      assertThat(r.apply(entry(LogEntry.newBuilder().setKvCompact(KvCompact.newBuilder().setRevision(1)))).result()
          .getMessage()).isEqualTo("etcdserver: mvcc: required revision has been compacted");
    }
  }

  @Test
  void aRepeatedRequestIdAppliesOnce() {
    try (Replica r = Replica.open(dir)) {
      LogEntry once = entry(LogEntry.newBuilder().setRequestId("put-1").setKvPut(put("a", "1")));
      r.apply(once);
      Result repeat = r.apply(once).result();
      assertThat(repeat.getReplayed()).isTrue();
      assertThat(get(r, "a").getVersion()).isEqualTo(1);
    }
  }

  @Test
  void theKeyspaceIsInTheSnapshot(@TempDir Path other) {
    Path file = other.resolve("snapshot.mdb");
    String before;
    try (Replica r = Replica.open(dir.resolve("live"))) {
      long lease = r.grantLease();
      r.apply(putEntry(put("a", "1").setLease(lease)));
      r.apply(entry(LogEntry.newBuilder().setKvCompact(KvCompact.newBuilder().setRevision(1))));
      before = r.tables();
      r.snapshotTo(file);
    }
    try (Replica restored = Replica.restore(other.resolve("restored"), file)) {
      assertThat(restored.tables()).isEqualTo(before).contains("kv ").contains("kv compacted 1");
      restored.apply(Entries.revoke(restored.leases().get(0).getId()));
      assertThat(get(restored, "a")).as("the lease index came with the snapshot").isNull();
    }
  }

  @Test
  void kvOperationsAreWrittenOnlyInTheirOwnVersion() {
    LogEntry.Builder op = LogEntry.newBuilder().setKvPut(put("a", "1"));
    assertThatThrownBy(() -> EntryCodec.encode(op.clone(), EntryCodec.ATTEMPT_ID_VERSION))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("version " + EntryCodec.KV_VERSION);
    assertThat(EntryCodec.decode(EntryCodec.encode(op.clone(), EntryCodec.MAX_VERSION)).getVersion())
        .isEqualTo(EntryCodec.KV_VERSION);
    try (Replica r = Replica.open(dir)) {
      Result refused = r.apply(op.clone().setVersion(EntryCodec.ATTEMPT_ID_VERSION).build()).result();
      assertThat(refused.getCode()).isEqualTo(Code.INVALID_ARGUMENT);
      assertThat(get(r, "a")).isNull();
    }
  }
}
