package io.regent.statemachine.kv;

import static io.regent.statemachine.kv.KvRulesTest.b;
import static io.regent.statemachine.kv.KvRulesTest.entry;
import static io.regent.statemachine.kv.KvRulesTest.put;
import static io.regent.statemachine.kv.KvRulesTest.putEntry;
import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.KvCompact;
import io.regent.statemachine.proto.KvDeleteRange;
import io.regent.statemachine.proto.KvEvent;
import io.regent.statemachine.proto.KvEvents;
import io.regent.statemachine.proto.KvOp;
import io.regent.statemachine.proto.KvRange;
import io.regent.statemachine.proto.KvTxn;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.store.KvHistory;
import io.regent.statemachine.support.Entries;
import io.regent.statemachine.support.Replica;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watch history in apply (docs/migrating.md "etcd's Watch"): each write of the keyspace records its events
 * under its entry's index, in the order they happened, with the previous key; the keys a lease takes with it are
 * DELETE events of the entry that ends the lease; refusals and reads record nothing; the window keeps
 * {@link KvHistory#MAX_REVISIONS} revisions and a compaction drops what is below its point, raising the floor;
 * the history travels in snapshots.
 */
class KvHistoryTest {
  @TempDir
  Path dir;

  static List<KvHistory.Revision> history(Replica r) {
    return r.read(txn -> txn.kvHistory().read(0, Long.MAX_VALUE, Integer.MAX_VALUE));
  }

  static List<KvEvent> eventsAt(Replica r, long revision) {
    List<KvHistory.Revision> at = r.read(txn -> txn.kvHistory().read(revision, revision, 1));
    return at.isEmpty() ? List.of() : at.get(0).events();
  }

  /**
   * The replica digest (what the rolling-upgrade and determinism tests compare) covers the keyspace and its
   * history: two replicas at the same applied index that differ only in a key's value differ. It left the kv
   * tables out until the watch history came, and these two matched.
   */
  @Test
  void twoReplicasThatDifferOnlyInTheKeyspaceHaveDifferentDigests() {
    try (Replica a = Replica.open(dir.resolve("a")); Replica b = Replica.open(dir.resolve("b"))) {
      a.apply(putEntry(put("digest", "1")));
      b.apply(putEntry(put("digest", "2")));
      assertThat(b.appliedIndex()).isEqualTo(a.appliedIndex());
      assertThat(b.digest()).isNotEqualTo(a.digest());
    }
  }

  @Test
  void eachWriteRecordsItsEventsUnderItsRevisionWithThePreviousKey() {
    try (Replica r = Replica.open(dir)) {
      long first = r.nextIndex();
      var created = r.apply(putEntry(put("a", "1")));
      assertThat(created.events()).extracting(ChangeEvent::kind).containsExactly(ChangeEvent.Kind.KV_CHANGED);
      long second = r.nextIndex();
      r.apply(putEntry(put("a", "2")));
      long txn = r.nextIndex();
      r.apply(entry(LogEntry.newBuilder().setKvTxn(KvTxn.newBuilder()
          .addSuccess(KvOp.newBuilder().setPut(put("b", "x")))
          .addSuccess(KvOp.newBuilder().setDeleteRange(KvDeleteRange.newBuilder().setKey(b("a")))))));

      KvEvent put = eventsAt(r, first).get(0);
      assertThat(put.getDelete()).isFalse();
      assertThat(put.getKv().getValue()).isEqualTo(b("1"));
      assertThat(put.hasPrevKv()).as("a created key had no previous one").isFalse();
      KvEvent again = eventsAt(r, second).get(0);
      assertThat(again.getKv().getModRevision()).isEqualTo(second);
      assertThat(again.getPrevKv().getValue()).isEqualTo(b("1"));
      List<KvEvent> both = eventsAt(r, txn);
      assertThat(both).extracting(KvEvent::getDelete).containsExactly(false, true);
      assertThat(both.get(1).getKv().getKey()).isEqualTo(b("a"));
      assertThat(both.get(1).getKv().getModRevision()).as("a DELETE carries its own revision").isEqualTo(txn);
      assertThat(both.get(1).getPrevKv().getValue()).isEqualTo(b("2"));
      assertThat(history(r)).extracting(KvHistory.Revision::revision).containsExactly(first, second, txn);
    }
  }

  @Test
  void theKeysALeaseTakesWithItAreDeleteEventsOfTheEntryThatEndsIt() {
    try (Replica r = Replica.open(dir)) {
      long lease = r.grantLease();
      r.apply(putEntry(put("lock/a", "x").setLease(lease)));
      r.apply(putEntry(put("lock/b", "y").setLease(lease)));
      long revoked = r.nextIndex();
      var outcome = r.apply(Entries.revoke(lease));
      assertThat(outcome.events()).extracting(ChangeEvent::kind).contains(ChangeEvent.Kind.KV_CHANGED);
      assertThat(eventsAt(r, revoked)).allMatch(KvEvent::getDelete)
          .extracting(e -> e.getPrevKv().getKey()).containsExactly(b("lock/a"), b("lock/b"));
    }
  }

  @Test
  void refusalsReadsAndEmptyDeletesRecordNothing() {
    try (Replica r = Replica.open(dir)) {
      r.apply(putEntry(put("a", "1")));
      String before = r.tables();
      assertThat(r.apply(putEntry(put("a", "2").setLease(999))).result().getCode()).isEqualTo(Code.NOT_FOUND);
      var refusedTxn = r.apply(entry(LogEntry.newBuilder().setKvTxn(KvTxn.newBuilder()
          .addSuccess(KvOp.newBuilder().setPut(put("x", "1")))
          .addSuccess(KvOp.newBuilder().setPut(put("y", "2").setLease(12345))))));
      assertThat(refusedTxn.result().getCode()).isEqualTo(Code.NOT_FOUND);
      var read = r.apply(entry(LogEntry.newBuilder().setKvTxn(KvTxn.newBuilder()
          .addSuccess(KvOp.newBuilder().setRange(KvRange.newBuilder().setKey(b("a")))))));
      var nothing = r.apply(entry(LogEntry.newBuilder().setKvDeleteRange(KvDeleteRange.newBuilder().setKey(b("no")))));
      assertThat(List.of(refusedTxn, read, nothing)).allMatch(o -> o.events().isEmpty());
      assertThat(r.tables()).isEqualTo(before);
    }
  }

  @Test
  void theWindowDropsTheOldestRevisionsAndRaisesTheFloor() {
    try (Replica r = Replica.open(dir)) {
      long first = r.nextIndex();
      long last = first + KvHistory.MAX_REVISIONS + 2;
      // the rules of MAX_REVISIONS + 3 entries in one transaction: the same records, without a commit each
      r.applyNext((txn, index) -> {
        for (long rev = first; rev <= last; rev++) {
          new KvRules(txn, rev, new ArrayList<>()).put(put("k", Long.toString(rev)).build());
        }
        return null;
      });
      assertThat(r.<Long>read(txn -> txn.kvHistory().count())).isEqualTo(KvHistory.MAX_REVISIONS);
      assertThat(r.<Long>read(txn -> txn.kvHistory().floor())).isEqualTo(first + 2);
      List<KvHistory.Revision> kept = history(r);
      assertThat(kept.get(0).revision()).isEqualTo(first + 3);
      assertThat(kept.get(kept.size() - 1).revision()).isEqualTo(last);
      long bytes = kept.stream().mapToLong(rev -> KvEvents.newBuilder()
          .addAllEvents(rev.events()).build().getSerializedSize()).sum();
      assertThat(r.<Long>read(txn -> txn.kvHistory().bytes())).isEqualTo(bytes);
    }
  }

  @Test
  void aCompactionDropsTheHistoryBelowItsPoint() {
    try (Replica r = Replica.open(dir)) {
      r.apply(putEntry(put("a", "1")));
      long second = r.nextIndex();
      r.apply(putEntry(put("a", "2")));
      long third = r.nextIndex();
      r.apply(putEntry(put("a", "3")));
      r.apply(entry(LogEntry.newBuilder().setKvCompact(KvCompact.newBuilder().setRevision(third))));
      assertThat(history(r)).extracting(KvHistory.Revision::revision).containsExactly(third);
      assertThat(r.<Long>read(txn -> txn.kvHistory().floor())).isEqualTo(second);
      assertThat(r.<Long>read(txn -> txn.kvHistory().bytes())).as("the dropped records' bytes are gone too")
          .isEqualTo(KvEvents.newBuilder().addAllEvents(history(r).get(0).events()).build().getSerializedSize());
    }
  }

  @Test
  void theHistoryTravelsInTheSnapshot(@TempDir Path other) {
    Path file = other.resolve("snapshot.mdb");
    String before;
    try (Replica r = Replica.open(dir.resolve("live"))) {
      long lease = r.grantLease();
      r.apply(putEntry(put("a", "1").setLease(lease)));
      r.apply(Entries.revoke(lease));
      before = r.tables();
      r.snapshotTo(file);
    }
    try (Replica restored = Replica.restore(other.resolve("restored"), file)) {
      assertThat(restored.tables()).isEqualTo(before).contains("kv-history ");
      assertThat(history(restored)).hasSize(2);
    }
  }
}
