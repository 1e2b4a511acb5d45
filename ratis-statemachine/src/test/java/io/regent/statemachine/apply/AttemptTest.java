package io.regent.statemachine.apply;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Resign;
import io.regent.statemachine.proto.Withdraw;
import io.regent.statemachine.support.Entries;
import io.regent.statemachine.support.Replica;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cleanup acts only on its own attempt (docs/api.md "Attempts"): the stranded call of a blocking
 * campaign that was re-sent elsewhere must not withdraw or resign what the re-send now owns.
 */
class AttemptTest {
  /** Attempts sort by the time their call arrived: fixed-width hex milliseconds first. */
  private static final String OLD = "0000000000a1-n1";
  private static final String NEW = "0000000000b2-n2";

  @TempDir
  Path dir;

  private static LogEntry campaign(String name, long lease, String attempt) {
    return Entries.logged(LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName(name).setLeaseId(lease)
        .setValue(ByteString.copyFromUtf8("c")).setAttempt(attempt)));
  }

  private static LogEntry withdraw(String name, long lease, String attempt) {
    return Entries.logged(LogEntry.newBuilder().setWithdraw(Withdraw.newBuilder().setName(name).setLeaseId(lease)
        .setAttempt(attempt)));
  }

  private static LogEntry resign(String name, long token, String attempt) {
    return Entries.logged(LogEntry.newBuilder().setResign(Resign.newBuilder().setName(name).setToken(token)
        .setAttempt(attempt)));
  }

  @Test
  void theStrandedCallsCleanupLeavesTheHolderThatTheReSendWon() {
    try (Replica r = Replica.open(dir)) {
      long a = r.grantLease();
      long c = r.grantLease();
      r.apply(Entries.campaign("jobs", a, "a"));
      r.apply(campaign("jobs", c, OLD)); // C waits, its call on the node that will be paused
      r.apply(campaign("jobs", c, NEW)); // the re-send elsewhere: same lease, same place, newer attempt
      assertThat(r.name("jobs").getCandidatesCount()).isEqualTo(1);
      r.apply(Entries.resign("jobs", r.name("jobs").getHolder().getToken())); // A releases: C is elected
      long token = r.name("jobs").getHolder().getToken();
      assertThat(r.name("jobs").getHolder().getLeaseId()).isEqualTo(c);
      assertThat(r.name("jobs").getHolder().getAttempt()).isEqualTo(NEW);
      // the paused node resumes and cleans up its cancelled call: withdraw, then resign when elected
      assertThat(r.apply(withdraw("jobs", c, OLD)).result().getElected()).isTrue();
      assertThat(r.apply(resign("jobs", token, OLD)).result().getCode()).isEqualTo(Code.FAILED_PRECONDITION);
      assertThat(r.name("jobs").getHolder().getLeaseId()).isEqualTo(c);
      // the re-send's own cleanup still works
      assertThat(r.apply(resign("jobs", token, NEW)).result().getCode()).isEqualTo(Code.OK);
      assertThat(r.name("jobs")).isNull();
    }
  }

  @Test
  void anOlderAttemptsWithdrawLeavesTheNewerCandidacyInLine() {
    try (Replica r = Replica.open(dir)) {
      long a = r.grantLease();
      long c = r.grantLease();
      r.apply(Entries.campaign("jobs", a, "a"));
      r.apply(campaign("jobs", c, OLD));
      r.apply(campaign("jobs", c, NEW));
      r.apply(withdraw("jobs", c, OLD));
      assertThat(r.name("jobs").getCandidatesList()).singleElement()
          .satisfies(x -> assertThat(x.getAttempt()).isEqualTo(NEW));
      r.apply(withdraw("jobs", c, NEW));
      assertThat(r.name("jobs").getCandidatesList()).isEmpty();
    }
  }

  @Test
  void aStrandedOlderCampaignThatAppliesLateDoesNotTakeTheCandidacyBack() {
    try (Replica r = Replica.open(dir)) {
      long a = r.grantLease();
      long c = r.grantLease();
      r.apply(Entries.campaign("jobs", a, "a"));
      r.apply(campaign("jobs", c, NEW));
      r.apply(campaign("jobs", c, OLD)); // the paused node's proposal, re-sent by Ratis after the pause
      r.apply(withdraw("jobs", c, OLD));
      assertThat(r.name("jobs").getCandidatesList()).singleElement()
          .satisfies(x -> assertThat(x.getAttempt()).isEqualTo(NEW));
    }
  }

  @Test
  void aCleanupOfARecordWrittenBeforeAttemptsStillActs() {
    try (Replica r = Replica.open(dir)) {
      long a = r.grantLease();
      r.apply(Entries.campaign("jobs", a, "a")); // version 1: no attempt recorded
      long token = r.name("jobs").getHolder().getToken();
      assertThat(r.apply(resign("jobs", token, NEW)).result().getCode()).isEqualTo(Code.OK);
      assertThat(r.name("jobs")).isNull();
    }
  }

  @Test
  void aCampaignAllElectedByItsReSendKeepsEveryNameWhenTheStrandedCallCleansUp() {
    try (Replica r = Replica.open(dir)) {
      long a = r.grantLease();
      long c = r.grantLease();
      r.apply(Entries.campaign("x", a, "a"));
      r.apply(campaignAll(c, OLD, "x", "y"));
      r.apply(campaignAll(c, NEW, "x", "y")); // the re-send: same candidacy, newer attempt
      r.apply(Entries.resign("x", r.name("x").getHolder().getToken())); // c takes x and y together
      long token = r.name("x").getHolder().getToken();
      assertThat(r.name("y").getHolder().getAttempt()).isEqualTo(NEW);
      assertThat(r.apply(withdraw("x", c, OLD)).result().getElected()).isTrue();
      assertThat(r.apply(resign("x", token, OLD)).result().getCode()).isEqualTo(Code.FAILED_PRECONDITION);
      assertThat(r.apply(resign("y", token, OLD)).result().getCode()).isEqualTo(Code.FAILED_PRECONDITION);
      assertThat(r.name("x").getHolder().getLeaseId()).isEqualTo(c);
      assertThat(r.name("y").getHolder().getLeaseId()).isEqualTo(c);
    }
  }

  private static LogEntry campaignAll(long lease, String attempt, String... names) {
    return Entries.logged(LogEntry.newBuilder().setCampaignAll(io.regent.statemachine.proto.CampaignAll.newBuilder()
        .addAllNames(java.util.List.of(names)).setLeaseId(lease).setValue(ByteString.copyFromUtf8("c"))
        .setAttempt(attempt)));
  }
}
