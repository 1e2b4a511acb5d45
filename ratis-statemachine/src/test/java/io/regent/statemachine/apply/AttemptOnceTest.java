package io.regent.statemachine.apply;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.CampaignAll;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Resign;
import io.regent.statemachine.proto.Withdraw;
import io.regent.statemachine.support.Entries;
import io.regent.statemachine.support.Replica;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Attempts apply once (docs/api.md "Attempts", {@link AttemptRule}): a copy of a blocking campaign that commits
 * after its attempt's cleanup, or after its holder resigned, changes nothing. Version 3 applied every copy: each
 * scenario is run at version 3 too, where it gives the name back to a lease whose caller gave it up.
 */
class AttemptOnceTest {
  private static final String ATTEMPT = "0000000000a1-5d1e";

  @TempDir
  Path dir;

  @ParameterizedTest(name = "version {0}")
  @ValueSource(ints = {EntryCodec.REQUEST_ID_VERSION, EntryCodec.ATTEMPT_ID_VERSION})
  void aCopyCommittingAfterItsAttemptsWithdrawLeavesNoCandidacy(int version) {
    try (Replica r = Replica.open(dir)) {
      long a = r.grantLease();
      long c = r.grantLease();
      r.apply(Entries.campaign("jobs", a, "a"));
      LogEntry campaign = at(version, campaign("jobs", c));
      r.apply(campaign);
      r.apply(at(version, withdraw("jobs", c))); // the call was cancelled: its cleanup
      r.apply(campaign); // a second copy of the same proposal (Ratis's re-send, or ours through a new client)
      assertThat(r.name("jobs").getCandidatesList()).as("version %d", version)
          .hasSize(version >= EntryCodec.ATTEMPT_ID_VERSION ? 0 : 1);
    }
  }

  @ParameterizedTest(name = "version {0}")
  @ValueSource(ints = {EntryCodec.REQUEST_ID_VERSION, EntryCodec.ATTEMPT_ID_VERSION})
  void aCopyCommittingAfterTheCleanupThatOvertookItChangesNothing(int version) {
    try (Replica r = Replica.open(dir)) {
      long a = r.grantLease();
      long c = r.grantLease();
      r.apply(Entries.campaign("jobs", a, "a"));
      r.apply(at(version, withdraw("jobs", c))); // the cleanup's entry went through another client, first
      r.apply(at(version, campaign("jobs", c)));
      assertThat(r.name("jobs").getCandidatesList()).as("version %d", version)
          .hasSize(version >= EntryCodec.ATTEMPT_ID_VERSION ? 0 : 1);
    }
  }

  @ParameterizedTest(name = "version {0}")
  @ValueSource(ints = {EntryCodec.REQUEST_ID_VERSION, EntryCodec.ATTEMPT_ID_VERSION})
  void aCopyCommittingAfterItsHolderResignedDoesNotElectItAgain(int version) {
    try (Replica r = Replica.open(dir)) {
      long c = r.grantLease();
      LogEntry campaign = at(version, campaign("jobs", c));
      r.apply(campaign);
      r.apply(Entries.resign("jobs", r.name("jobs").getHolder().getToken())); // the caller was told; it resigns
      ApplyOutcome copy = r.apply(campaign);
      if (version >= EntryCodec.ATTEMPT_ID_VERSION) {
        assertThat(r.name("jobs")).isNull();
        assertThat(copy.result().getReplayed()).isTrue();
        assertThat(copy.result().getElected()).as("the first copy's answer").isTrue();
      } else {
        assertThat(r.name("jobs").getHolder().getLeaseId()).isEqualTo(c);
      }
    }
  }

  @Test
  void aCopyOfACampaignAllAfterItsCleanupTakesNoName() {
    try (Replica r = Replica.open(dir)) {
      long a = r.grantLease();
      long c = r.grantLease();
      r.apply(Entries.campaign("x", a, "a"));
      LogEntry all = Entries.logged(LogEntry.newBuilder().setCampaignAll(CampaignAll.newBuilder()
          .addAllNames(List.of("x", "y")).setLeaseId(c).setValue(ByteString.copyFromUtf8("c")).setAttempt(ATTEMPT)));
      r.apply(all);
      r.apply(Entries.logged(withdraw("x", c)));
      r.apply(all);
      r.apply(Entries.resign("x", r.name("x").getHolder().getToken()));
      assertThat(r.name("x")).isNull();
      assertThat(r.name("y")).isNull();
    }
  }

  @Test
  void aRefusedAttemptStaysRefusedForItsLaterCopies() {
    try (Replica r = Replica.open(dir)) {
      long c = r.grantLease();
      LogEntry campaign = Entries.logged(LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName("jobs")
          .setLeaseId(c + 1_000).setAttempt(ATTEMPT))); // no such lease yet
      assertThat(r.apply(campaign).result().getCode()).isEqualTo(Code.NOT_FOUND);
      assertThat(r.apply(campaign).result().getReplayed()).isTrue();
      assertThat(r.name("jobs")).isNull();
    }
  }

  @Test
  void aClientsReSendIsANewAttemptAndApplies() {
    try (Replica r = Replica.open(dir)) {
      long a = r.grantLease();
      long c = r.grantLease();
      r.apply(Entries.campaign("jobs", a, "a"));
      r.apply(Entries.logged(campaign("jobs", c)));
      r.apply(Entries.logged(withdraw("jobs", c)));
      r.apply(Entries.logged(LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName("jobs").setLeaseId(c)
          .setAttempt("0000000000b2-77aa"))));
      assertThat(r.name("jobs").getCandidatesList()).singleElement()
          .satisfies(x -> assertThat(x.getAttempt()).isEqualTo("0000000000b2-77aa"));
    }
  }

  @Test
  void anAttemptLongerThanItsRecordIdAllowsIsRefused() {
    try (Replica r = Replica.open(dir)) {
      long c = r.grantLease();
      LogEntry campaign = Entries.logged(LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName("jobs")
          .setLeaseId(c).setAttempt("a".repeat(AttemptRule.MAX_ATTEMPT_CHARS + 1))));
      assertThat(r.apply(campaign).result().getCode()).isEqualTo(Code.INVALID_ARGUMENT);
      assertThat(r.name("jobs")).isNull();
    }
  }

  @Test
  void theClusterWritesVersion4OnlyForOperationsNamingAnAttempt() {
    assertThat(Entries.logged(campaign("jobs", 5)).getVersion()).isEqualTo(EntryCodec.ATTEMPT_ID_VERSION);
    assertThat(Entries.logged(LogEntry.newBuilder().setResign(Resign.newBuilder().setName("jobs").setToken(3)
        .setAttempt(ATTEMPT))).getVersion()).isEqualTo(EntryCodec.ATTEMPT_ID_VERSION);
    assertThat(Entries.logged(LogEntry.newBuilder().setRequestId("r").setResign(Resign.newBuilder().setName("jobs")
        .setToken(3))).getVersion()).isEqualTo(EntryCodec.REQUEST_ID_VERSION);
    assertThat(at(EntryCodec.REQUEST_ID_VERSION, campaign("jobs", 5)).getVersion())
        .isEqualTo(EntryCodec.REQUEST_ID_VERSION);
  }

  private static LogEntry.Builder campaign(String name, long lease) {
    return LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName(name).setLeaseId(lease)
        .setValue(ByteString.copyFromUtf8("c")).setAttempt(ATTEMPT));
  }

  private static LogEntry.Builder withdraw(String name, long lease) {
    return LogEntry.newBuilder().setWithdraw(Withdraw.newBuilder().setName(name).setLeaseId(lease)
        .setAttempt(ATTEMPT));
  }

  /** {@code entry} as a cluster writing {@code version} logs it. */
  private static LogEntry at(int version, LogEntry.Builder entry) {
    return EntryCodec.decode(EntryCodec.encode(entry, version));
  }
}
