package io.regent.statemachine.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.RequestRecord;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.support.Entries;
import io.regent.statemachine.support.Replica;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly-once requests at apply (docs/api.md "Request ids"): a repeat of a request id answers from the first
 * apply's record and changes nothing; another request under the same id is refused; records are pruned by count,
 * the same on every replica; and a cluster that does not write version 3 keeps no records.
 */
class RequestIdTest {
  private static final ByteString DIGEST = ByteString.copyFromUtf8("d1");

  @TempDir
  Path dir;

  private static LogEntry grant(String id, ByteString digest) {
    return Entries.logged(LogEntry.newBuilder().setRequestId(id).setRequestDigest(digest)
        .setGrant(Grant.newBuilder().setTtlMs(5_000)));
  }

  private static LogEntry campaignWithTtl(String id, String name) {
    return Entries.logged(LogEntry.newBuilder().setRequestId(id).setRequestDigest(DIGEST)
        .setCampaign(Campaign.newBuilder().setName(name).setTtlMs(5_000).setValue(ByteString.copyFromUtf8("v"))));
  }

  @Test
  void aRepeatedGrantAnswersTheFirstLeaseAndGrantsNoOther() {
    try (Replica r = Replica.open(dir)) {
      Result first = r.apply(grant("g-1", DIGEST)).result();
      String after = r.tables();
      Result again = r.apply(grant("g-1", DIGEST)).result();
      assertThat(again.getReplayed()).isTrue();
      assertThat(again.getLeaseId()).isEqualTo(first.getLeaseId());
      assertThat(again.getIndex()).isEqualTo(first.getIndex());
      assertThat(r.leases().size()).isEqualTo(1);
      assertThat(r.tables()).isEqualTo(after);
    }
  }

  @Test
  void aRepeatedCampaignWithTtlMintsOneLeaseAndAnswersElectedAsTheFirstTime() {
    try (Replica r = Replica.open(dir)) {
      Result first = r.apply(campaignWithTtl("c-1", "jobs")).result();
      Result again = r.apply(campaignWithTtl("c-1", "jobs")).result();
      assertThat(first.getElected()).isTrue();
      // without the record the repeat would be a second lease queued behind the first, answered "not elected"
      assertThat(again.getElected()).isTrue();
      assertThat(again.getLeaseId()).isEqualTo(first.getLeaseId());
      assertThat(r.leases().size()).isEqualTo(1);
    }
  }

  @Test
  void theSameIdWithOtherArgumentsIsRefusedAndChangesNothing() {
    try (Replica r = Replica.open(dir)) {
      r.apply(grant("g-1", DIGEST));
      String before = r.tables();
      Result other = r.apply(grant("g-1", ByteString.copyFromUtf8("d2"))).result();
      assertThat(other.getCode()).isEqualTo(Code.INVALID_ARGUMENT);
      assertThat(other.getMessage()).contains("g-1").contains("other arguments");
      assertThat(records(r)).isEqualTo(1);
      assertThat(r.tables()).isEqualTo(before);
    }
  }

  @Test
  void anIdOutsideItsAlphabetOrLengthIsRefused() {
    try (Replica r = Replica.open(dir)) {
      assertThat(r.apply(grant("bad id", DIGEST)).result().getCode()).isEqualTo(Code.INVALID_ARGUMENT);
      assertThat(r.apply(grant("x".repeat(Limits.MAX_REQUEST_ID_CHARS + 1), DIGEST)).result().getCode())
          .isEqualTo(Code.INVALID_ARGUMENT);
      assertThat(r.leases().size()).isZero();
    }
  }

  @Test
  void aRefusalIsNotRecordedSoTheRequestMayBeSentAgainOnceItCanApply() {
    try (Replica r = Replica.open(dir)) {
      LogEntry full = Entries.logged(LogEntry.newBuilder().setRequestId("g-1").setRequestDigest(DIGEST)
          .setGrant(Grant.newBuilder().setTtlMs(5_000).setMaxLeases(1)));
      r.grantLease();
      assertThat(r.apply(full).result().getCode()).isEqualTo(Code.RESOURCE_EXHAUSTED);
      assertThat(record(r, "g-1")).isNull();
    }
  }

  @Test
  void twoOperationsOfOneBatchWithOneIdApplyOnce() {
    try (Replica r = Replica.open(dir)) {
      Result batch = r.apply(Entries.batch(grant("g-1", DIGEST), grant("g-1", DIGEST))).result();
      assertThat(batch.getResults(1).getReplayed()).isTrue();
      assertThat(batch.getResults(1).getLeaseId()).isEqualTo(batch.getResults(0).getLeaseId());
      assertThat(r.leases().size()).isEqualTo(1);
    }
  }

  @Test
  void theOldestRecordsArePrunedBeyondTheCountAndTheNewestStays() {
    try (Replica r = Replica.open(dir)) {
      r.applyNext((txn, i) -> {
        for (int n = 0; n < 5; n++) {
          txn.requests().put("r-" + n, RequestRecord.newBuilder().setDigest(DIGEST).build(), 3, Long.MAX_VALUE);
        }
        return null;
      });
      assertThat(records(r)).isEqualTo(3);
      assertThat(record(r, "r-1")).isNull();
      assertThat(record(r, "r-2")).isNotNull();
      assertThat(record(r, "r-4")).isNotNull();
      long oneRecord = record(r, "r-4").getSerializedSize();
      r.applyNext((txn, i) -> {
        txn.requests().put("r-5", RequestRecord.newBuilder().setDigest(DIGEST).build(), 100, oneRecord);
        return null;
      });
      assertThat(records(r)).isEqualTo(1);
      assertThat(record(r, "r-5")).isNotNull();
    }
  }

  @Test
  void aReSendWhoseRecordMayHaveBeenPrunedIsRefusedAndChangesNothing() {
    try (Replica r = Replica.open(dir)) {
      r.applyNext((txn, i) -> {
        for (int n = 0; n < 5; n++) { // records of requests applied at indexes 100..104; 100 and 101 are pruned
          txn.requests().put("r-" + n, RequestRecord.newBuilder().setDigest(DIGEST)
              .setAnswer(Result.newBuilder().setIndex(100 + n)).build(), 3, Long.MAX_VALUE);
        }
        return null;
      });
      // first sent after index 100: had it applied, its record (above 100) might be one of those pruned
      Result refused = r.apply(Entries.logged(grant("g-9", DIGEST).toBuilder().setRequestSeenIndex(100))).result();
      assertThat(refused.getCode()).isEqualTo(Code.FAILED_PRECONDITION);
      assertThat(refused.getMessage()).contains("pruned").contains("g-9");
      assertThat(r.leases()).isEmpty();
      assertThat(record(r, "g-9")).isNull();
      // first sent after index 101: every record above it is kept, so no record means it never applied
      Result applied = r.apply(Entries.logged(grant("g-9", DIGEST).toBuilder().setRequestSeenIndex(101))).result();
      assertThat(applied.getCode()).isEqualTo(Code.OK);
      assertThat(r.leases()).hasSize(1);
    }
  }

  @Test
  void withNothingPrunedAReSendWithoutRecordApplies() {
    try (Replica r = Replica.open(dir)) {
      Result applied = r.apply(Entries.logged(grant("g-9", DIGEST).toBuilder().setRequestSeenIndex(1))).result();
      assertThat(applied.getCode()).isEqualTo(Code.OK);
    }
  }

  @Test
  void belowVersion3TheIdIsLeftOutAndNothingIsRecorded() {
    LogEntry.Builder b = LogEntry.newBuilder().setRequestId("g-1").setRequestDigest(DIGEST)
        .setGrant(Grant.newBuilder().setTtlMs(5_000));
    LogEntry v2 = EntryCodec.decode(EntryCodec.encode(b, EntryCodec.BATCH_VERSION));
    assertThat(v2.getVersion()).isEqualTo(EntryCodec.VERSION);
    assertThat(v2.getRequestId()).isEmpty();
    LogEntry.Builder c = LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName("n").setAttempt("a"));
    assertThat(EntryCodec.decode(EntryCodec.encode(c, 1)).getCampaign().getAttempt()).isEmpty();
  }

  @Test
  void aBatchNeedsVersion2AndAVersionAboveThisBuildStopsApply() {
    LogEntry.Builder batch = Entries.batch(Entries.grant(1_000)).toBuilder();
    assertThatThrownBy(() -> EntryCodec.encode(batch, EntryCodec.VERSION))
        .isInstanceOf(IllegalArgumentException.class);
    try (Replica r = Replica.open(dir)) {
      LogEntry future = Entries.grant(1_000).toBuilder().setVersion(EntryCodec.MAX_VERSION + 1).build();
      assertThatThrownBy(() -> r.apply(future)).isInstanceOf(UnknownEntryVersionException.class)
          .hasMessageContaining("upgrade");
      assertThat(r.leases().size()).isZero();
    }
  }

  private static long records(Replica r) {
    Long n = r.read(txn -> txn.requests().count());
    return n;
  }

  private static RequestRecord record(Replica r, String id) {
    RequestRecord rec = r.read(txn -> txn.requests().get(id));
    return rec;
  }
}
