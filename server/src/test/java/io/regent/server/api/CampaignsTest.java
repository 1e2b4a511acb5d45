package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.server.limits.LeaseQuota;
import io.regent.server.limits.NameQuota;
import io.regent.server.limits.ServerLimits;
import io.regent.server.replication.Cleanups;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A cancelled campaign withdraws its candidacy only once the Campaign entry has an outcome. */
class CampaignsTest {
  private final List<LogEntry.CommandCase> proposed = new CopyOnWriteArrayList<>();
  private final List<LogEntry> entries = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Result> campaign = new CompletableFuture<>();
  /** What the next withdrawals answer, in order; then each is applied. */
  private final Deque<CompletableFuture<Result>> withdrawals = new ArrayDeque<>();
  private final Campaigns campaigns = campaigns(false);

  private Campaigns campaigns(boolean unsafeCleanupAnyAttempt) {
    return new Campaigns(entry -> {
      proposed.add(entry.getCommandCase());
      entries.add(entry.build());
      if (entry.hasWithdraw() && !withdrawals.isEmpty()) {
        return withdrawals.poll();
      }
      return entry.hasCampaign() ? campaign
          : CompletableFuture.completedFuture(Result.newBuilder().setIndex(9).build());
    }, new EventHub(16), null, ServerLimits.DEFAULTS, new LeaseGrants(1, ServerLimits.DEFAULTS, new LeaseQuota(1),
        new LeaseQuota(1), new NameQuota(1_000), null, Runnable::run), new NameQuota(1_000), Runnable::run, // no replica to read
        new Attempts(() -> 0xabcL, unsafeCleanupAnyAttempt), new Cleanups(ms -> Runnable::run));
  }

  @Test
  void aWithdrawalThatCouldNotCommitIsProposedAgainUntilOneDoes() {
    // a node that resumed after a pause proposed its cleanup through the leader it last knew, and it failed:
    // before the fix that cleanup was dropped, and the gone caller's candidacy stayed in line
    withdrawals.add(CompletableFuture.failedFuture(new Proposer.UnavailableException("no quorum", null)));
    withdrawals.add(CompletableFuture.failedFuture(new Proposer.UnavailableException("no quorum", null)));
    FakeServerCall<LeaderKey> obs = new FakeServerCall<>();
    campaigns.campaign("jobs", 3, ByteString.EMPTY, 0, false, obs::setOnCancelHandler);
    obs.cancel();
    campaign.complete(Result.newBuilder().setCode(Code.OK).setIndex(5).build());
    assertThat(proposed).containsExactly(LogEntry.CommandCase.CAMPAIGN, LogEntry.CommandCase.WITHDRAW,
        LogEntry.CommandCase.WITHDRAW, LogEntry.CommandCase.WITHDRAW);
    assertThat(entries.subList(1, 4)).extracting(e -> e.getWithdraw().getAttempt())
        .containsOnly(entries.get(0).getCampaign().getAttempt());
  }

  @Test
  void theWithdrawalOfACancelledCampaignWaitsForTheCampaignsOutcome() {
    FakeServerCall<LeaderKey> obs = new FakeServerCall<>();
    campaigns.campaign("jobs", 3, ByteString.EMPTY, 0, false, obs::setOnCancelHandler);

    obs.cancel(); // the caller went away while the Campaign is still in flight
    // before the fix the Withdraw was proposed here, and could apply before the Campaign and do nothing
    assertThat(proposed).containsExactly(LogEntry.CommandCase.CAMPAIGN);

    campaign.complete(Result.newBuilder().setCode(Code.OK).setIndex(5).build()); // queued as a candidate
    assertThat(proposed).containsExactly(LogEntry.CommandCase.CAMPAIGN, LogEntry.CommandCase.WITHDRAW);
  }

  @Test
  void aRefusedCampaignHasNothingToWithdraw() {
    FakeServerCall<LeaderKey> obs = new FakeServerCall<>();
    campaigns.campaign("jobs", 3, ByteString.EMPTY, 0, false, obs::setOnCancelHandler);
    obs.cancel();
    campaign.complete(Result.newBuilder().setCode(Code.NOT_FOUND).setIndex(5).build());
    assertThat(proposed).containsExactly(LogEntry.CommandCase.CAMPAIGN);
  }

  @Test
  void theCleanupNamesTheAttemptItsCampaignRecordedAndEachCallIsANewAttempt() {
    FakeServerCall<LeaderKey> first = new FakeServerCall<>();
    campaigns.campaign("jobs", 3, ByteString.EMPTY, 0, false, first::setOnCancelHandler);
    campaigns.campaign("jobs", 3, ByteString.EMPTY, 0, false, new FakeServerCall<LeaderKey>()::setOnCancelHandler);
    first.cancel();
    campaign.complete(Result.newBuilder().setCode(Code.OK).setIndex(5).build());
    String attempt = entries.get(0).getCampaign().getAttempt();
    assertThat(attempt).startsWith("000000000abc-");
    assertThat(entries.get(1).getCampaign().getAttempt()).isNotEqualTo(attempt).startsWith("000000000abc-");
    assertThat(entries.get(2).getWithdraw().getAttempt()).isEqualTo(attempt);
  }

  @Test
  void theNegativeControlsCleanupNamesNoAttempt() {
    Campaigns unsafe = campaigns(true);
    FakeServerCall<LeaderKey> obs = new FakeServerCall<>();
    unsafe.campaign("jobs", 3, ByteString.EMPTY, 0, false, obs::setOnCancelHandler);
    obs.cancel();
    campaign.complete(Result.newBuilder().setCode(Code.OK).setIndex(5).build());
    assertThat(entries.get(1).getWithdraw().getAttempt()).isEmpty();
  }
}
