package io.regent.server.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.server.replication.Proposer.UnavailableException;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Group commit of client operations, against a proposer whose answers the test gives by hand. */
class ProposalBatcherTest {
  final List<LogEntry> sent = new ArrayList<>();
  final List<CompletableFuture<Result>> replies = new ArrayList<>();
  /** The entry version every voter applies, as the test sets it. */
  int writable = EntryCodec.MAX_VERSION;
  final ProposalBatcher batcher = new ProposalBatcher(e -> {
    sent.add(e.build());
    CompletableFuture<Result> reply = new CompletableFuture<>();
    replies.add(reply);
    return reply;
  }, 3, 1 << 20, 1, () -> writable);

  static LogEntry.Builder campaign(String name, long lease) {
    return LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName(name).setLeaseId(lease));
  }

  static Result ok(long index, long lease) {
    return Result.newBuilder().setIndex(index).setLeaseId(lease).build();
  }

  @Test
  void aLoneOperationGoesAtOnceAndAlone() {
    CompletableFuture<Result> a = batcher.propose(campaign("a", 1));
    assertThat(sent).singleElement().satisfies(e -> assertThat(e.hasCampaign()).isTrue());
    replies.get(0).complete(ok(5, 1));
    assertThat(a).isCompletedWithValue(ok(5, 1));
  }

  @Test
  void operationsArrivingWhileAnEntryIsInFlightGoTogetherWithTheirOwnResults() {
    batcher.propose(campaign("a", 1));
    CompletableFuture<Result> b = batcher.propose(campaign("b", 2));
    CompletableFuture<Result> c = batcher.propose(LogEntry.newBuilder().setGrant(Grant.newBuilder().setTtlMs(3000)));
    assertThat(sent).as("nothing waits on a timer, nothing more goes before an answer").hasSize(1);
    replies.get(0).complete(ok(5, 1));
    assertThat(sent).hasSize(2);
    assertThat(sent.get(1).getBatch().getEntriesList()).extracting(LogEntry::getCommandCase)
        .containsExactly(LogEntry.CommandCase.CAMPAIGN, LogEntry.CommandCase.GRANT);
    replies.get(1).complete(Result.newBuilder().setIndex(6).addResults(ok(6, 2)).addResults(ok(6, 7)).build());
    assertThat(b).isCompletedWithValue(ok(6, 2));
    assertThat(c).isCompletedWithValue(ok(6, 7));
  }

  @Test
  void twoOperationsOnOneNameGoInSeparateEntriesInTheirOrder() {
    batcher.propose(campaign("x", 1));
    batcher.propose(campaign("a", 2));
    batcher.propose(campaign("a", 3));
    batcher.propose(campaign("b", 4));
    replies.get(0).complete(ok(5, 1));
    assertThat(sent.get(1).getBatch().getEntriesList()).extracting(e -> e.getCampaign().getLeaseId())
        .containsExactly(2L, 4L);
    replies.get(1).complete(Result.newBuilder().addResults(ok(6, 2)).addResults(ok(6, 4)).build());
    assertThat(sent.get(2).getCampaign().getLeaseId()).isEqualTo(3);
  }

  @Test
  void anOperationRefusedForAConflictInItsBatchIsSentAgainAlone() {
    batcher.propose(campaign("x", 1));
    CompletableFuture<Result> a = batcher.propose(campaign("a", 2));
    CompletableFuture<Result> b = batcher.propose(campaign("b", 3));
    replies.get(0).complete(ok(5, 1));
    replies.get(1).complete(Result.newBuilder().addResults(ok(6, 2))
        .addResults(Result.newBuilder().setCode(Code.BATCH_CONFLICT).setIndex(6)).build());
    assertThat(a).isCompletedWithValue(ok(6, 2));
    assertThat(b).isNotDone();
    assertThat(sent.get(2).getCampaign().getLeaseId()).isEqualTo(3);
    replies.get(2).complete(ok(7, 3));
    assertThat(b).isCompletedWithValue(ok(7, 3));
  }

  @Test
  void aFailedBatchFailsEachOfItsOperations() {
    batcher.propose(campaign("x", 1));
    CompletableFuture<Result> a = batcher.propose(campaign("a", 2));
    CompletableFuture<Result> b = batcher.propose(campaign("b", 3));
    replies.get(0).complete(ok(5, 1));
    UnavailableException down = new UnavailableException("no quorum", null);
    replies.get(1).completeExceptionally(down);
    assertThat(a).isCompletedExceptionally();
    assertThat(b).isCompletedExceptionally();
  }

  @Test
  void entriesThatCannotBeBatchedDoNotWait() {
    batcher.propose(campaign("x", 1));
    batcher.propose(LogEntry.newBuilder().setConfirm(Confirm.newBuilder().addRenewLeaseIds(1)));
    assertThat(sent).extracting(LogEntry::getCommandCase)
        .containsExactly(LogEntry.CommandCase.CAMPAIGN, LogEntry.CommandCase.CONFIRM);
  }

  @Test
  void whileAVoterAppliesNoBatchesEveryOperationGoesAlone() {
    writable = EntryCodec.VERSION; // a voter still on a build from before batch entries (docs/operations.md "Upgrades")
    batcher.propose(campaign("a", 1));
    batcher.propose(campaign("b", 2));
    batcher.propose(campaign("c", 3));
    replies.get(0).complete(Result.newBuilder().build());
    assertThat(sent).hasSize(2);
    assertThat(sent.get(1).hasBatch()).isFalse();
    writable = EntryCodec.MAX_VERSION; // every voter upgraded: the next cut batches again
    replies.get(1).complete(Result.newBuilder().build());
    assertThat(sent).hasSize(3);
    assertThat(sent.get(2).hasBatch()).isFalse(); // only "c" was left
  }

  /** A caller's continuation runs while it is answered: the queued operations must already be on their way. */
  @Test
  void theNextEntryIsSentBeforeTheCallersOfTheLastOneAreAnswered() {
    CompletableFuture<Result> a = batcher.propose(campaign("a", 1));
    batcher.propose(campaign("b", 2));
    List<Integer> sentWhenAnswered = new ArrayList<>();
    a.thenRun(() -> sentWhenAnswered.add(sent.size()));
    replies.get(0).complete(ok(5, 1));
    assertThat(sentWhenAnswered).as("entries sent when the first caller heard its answer").containsExactly(2);
  }
}
