package io.regent.server.lease;

import static io.regent.statemachine.replica.LeaseVerdict.EXPIRING;
import static io.regent.statemachine.replica.LeaseVerdict.UNVOUCHED;
import static io.regent.statemachine.replica.LeaseVerdict.measured;
import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.replica.LeaseVerdict;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Leader-side lease time on a fake monotonic clock; ticks are driven by hand. */
class LessorTest {
  static final long CHECKPOINT_MS = 1_000;
  final AtomicLong now = new AtomicLong(1_000_000_000L);
  final List<LogEntry> proposed = new ArrayList<>();
  final List<CompletableFuture<Result>> replies = new ArrayList<>();
  final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  Lessor lessor;

  @BeforeEach
  void setUp() {
    lessor = new Lessor(now::get, scheduler, TimeUnit.DAYS.toMillis(1), CHECKPOINT_MS);
    lessor.setProposer(e -> {
      proposed.add(e.build());
      CompletableFuture<Result> reply = new CompletableFuture<>();
      replies.add(reply);
      return reply;
    });
  }

  @AfterEach
  void tearDown() {
    lessor.close();
    scheduler.shutdownNow();
  }

  static LeaseRecord lease(long id, long ttlMs) {
    return LeaseRecord.newBuilder().setId(id).setTtlMs(ttlMs).build();
  }

  static NameRecord delayed(String name, long delayMs, long startIndex) {
    return NameRecord.newBuilder().setName(name).setLockDelayMs(delayMs).setLockDelayStartIndex(startIndex).build();
  }

  void advanceMs(long ms) {
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
  }

  @Test
  void readinessReArmsEveryLeaseToAFullTtl() {
    lessor.onLeaderReady(3, List.of(lease(1, 2000), lease(2, 5000)), List.of());
    advanceMs(1500);
    List<LeaseVerdict> remaining = lessor.confirm(3, List.of(), List.of(lease(1, 2000), lease(2, 5000)));
    assertThat(remaining).containsExactly(measured(500), measured(3500));
  }

  @Test
  void aKeepaliveConfirmedInTheLeadersTermRenewsToNowPlusTtl() {
    lessor.onLeaderReady(3, List.of(lease(1, 2000)), List.of());
    advanceMs(1900);
    assertThat(lessor.confirm(3, List.of(lease(1, 2000)), List.of())).containsExactly(measured(2000));
    advanceMs(1900);
    lessor.tick();
    assertThat(proposed).isEmpty();
  }

  @Test
  void aLeaseRenewedManyTimesIsProposedForExpiryOnceAtItsLastDeadlineAndAgainOnlyAfterAFailure() {
    lessor.onLeaderReady(3, List.of(lease(1, 2000)), List.of());
    for (int i = 0; i < 5; i++) {
      advanceMs(1000);
      lessor.confirm(3, List.of(lease(1, 2000)), List.of());
      lessor.tick();
    }
    assertThat(proposed).as("every earlier deadline was superseded").isEmpty();
    advanceMs(2000);
    lessor.tick();
    lessor.tick();
    assertThat(proposed).singleElement().satisfies(e -> assertThat(e.getExpire().getLeaseIdsList()).containsExactly(1L));
    advanceMs(5000);
    lessor.tick();
    assertThat(proposed).as("still unanswered: not proposed again").hasSize(1);
    replies.get(0).completeExceptionally(new IllegalStateException("timed out"));
    advanceMs(999);
    lessor.tick();
    assertThat(proposed).as("a failed expiry waits before it is retried").hasSize(1);
    advanceMs(1);
    lessor.tick();
    assertThat(proposed).hasSize(2);
    lessor.onEnded(List.of(1L));
    replies.get(1).completeExceptionally(new IllegalStateException("timed out"));
    advanceMs(5000);
    lessor.tick();
    assertThat(proposed).as("ended: never proposed again").hasSize(2);
  }

  @Test
  void aConfirmOfAnotherTermOrBeforeReadinessCannotVouch() {
    assertThat(lessor.confirm(3, List.of(lease(1, 2000)), List.of())).containsExactly(UNVOUCHED);
    lessor.onLeaderReady(4, List.of(lease(1, 2000)), List.of());
    assertThat(lessor.confirm(3, List.of(lease(1, 2000)), List.of())).containsExactly(UNVOUCHED);
  }

  @Test
  void onceExpiryIsDecidedKeepalivesAreRefusedAndExpireCarriesTheTerm() {
    lessor.onLeaderReady(7, List.of(lease(1, 2000), lease(2, 4000)), List.of());
    advanceMs(2000);
    lessor.tick();
    assertThat(proposed).singleElement().satisfies(e -> {
      assertThat(e.getExpire().getLeaseIdsList()).containsExactly(1L);
      assertThat(e.getExpire().getProposerTerm()).isEqualTo(7);
    });
    assertThat(lessor.confirm(7, List.of(lease(1, 2000)), List.of())).containsExactly(EXPIRING);
    assertThat(lessor.confirm(7, List.of(), List.of(lease(1, 2000)))).containsExactly(EXPIRING);
  }

  @Test
  void aDeposedLeaderForgetsDeadlinesAndProposesNothing() {
    lessor.onLeaderReady(7, List.of(lease(1, 2000)), List.of());
    lessor.onNotLeader(7);
    advanceMs(10_000);
    lessor.tick();
    assertThat(proposed).isEmpty();
  }

  @Test
  void aReadinessOfATermThisNodeHasLeftIsIgnored() {
    lessor.onNotLeader(7); // delivered before the readiness of term 7 (or of an older term) was
    lessor.onLeaderReady(7, List.of(lease(1, 2000)), List.of());
    lessor.onLeaderReady(6, List.of(lease(1, 2000)), List.of());
    advanceMs(10_000);
    lessor.tick();
    assertThat(proposed).isEmpty();
    assertThat(lessor.confirm(7, List.of(lease(1, 2000)), List.of())).as("cannot vouch").containsExactly(UNVOUCHED);
    lessor.onLeaderReady(9, List.of(lease(1, 2000)), List.of());
    assertThat(lessor.confirm(9, List.of(lease(1, 2000)), List.of())).as("a later term is a new epoch").containsExactly(measured(2000));
  }

  @Test
  void aReplyToAnEntryOfAnEarlierEpochChangesNothing() {
    lessor.onLeaderReady(3, List.of(lease(1, 2000)), List.of());
    advanceMs(2000);
    lessor.tick();
    lessor.onNotLeader(3);
    lessor.onLeaderReady(5, List.of(lease(1, 2000)), List.of());
    replies.get(0).completeExceptionally(new IllegalStateException("term 3 is over"));
    advanceMs(1999);
    lessor.tick();
    assertThat(proposed).as("term 5 re-armed the lease; the old failure queued no retry").hasSize(1);
  }

  @Test
  void aMassExpiryCostsFewEntriesAndIsPaced() {
    List<LeaseRecord> many = LongStream.rangeClosed(1, 7500).mapToObj(i -> lease(i, 2000)).toList();
    lessor.onLeaderReady(2, many, List.of());
    advanceMs(2000);
    lessor.tick();
    assertThat(proposed).as("bounded per tick").hasSize(Lessor.EXPIRE_BATCHES_PER_TICK);
    lessor.tick();
    lessor.tick();
    assertThat(proposed).as("bounded in flight").hasSize(Lessor.MAX_EXPIRES_IN_FLIGHT);
    replies.forEach(r -> r.complete(Result.getDefaultInstance()));
    lessor.tick();
    lessor.tick();
    assertThat(proposed).hasSize(8);
    assertThat(proposed.stream().mapToInt(e -> e.getExpire().getLeaseIdsCount()).sum()).isEqualTo(7500);
    assertThat(proposed).allSatisfy(e -> assertThat(e.getExpire().getLeaseIdsCount()).isLessThanOrEqualTo(Lessor.MAX_BATCH));
  }

  @Test
  void aLockDelayEndsWithAnEntryNamingItsTermAndStartIndexAfterTheDelay() {
    lessor.onLeaderReady(4, List.of(), List.of());
    lessor.onLockDelay(delayed("jobs", 3000, 10));
    advanceMs(2999);
    lessor.tick();
    assertThat(proposed).isEmpty();
    advanceMs(1);
    lessor.tick();
    assertThat(proposed).singleElement().satisfies(e -> {
      assertThat(e.getEndLockDelay().getName()).isEqualTo("jobs");
      assertThat(e.getEndLockDelay().getProposerTerm()).isEqualTo(4);
      assertThat(e.getEndLockDelay().getDelayStartIndex()).isEqualTo(10);
    });
  }

  @Test
  void anUnansweredEndLockDelayIsProposedAgainAfterASecondUntilAnswered() {
    lessor.onLeaderReady(4, List.of(), List.of());
    lessor.onLockDelay(delayed("jobs", 3000, 10));
    advanceMs(3000);
    lessor.tick();
    advanceMs(999);
    lessor.tick();
    assertThat(proposed).hasSize(1);
    advanceMs(1);
    lessor.tick();
    assertThat(proposed).hasSize(2);
    replies.get(1).complete(Result.getDefaultInstance());
    advanceMs(5000);
    lessor.tick();
    assertThat(proposed).hasSize(2);
  }

  @Test
  void aRefusedEndLockDelayKeepsTheDelayTimed() {
    lessor.onLeaderReady(4, List.of(), List.of());
    lessor.onLockDelay(delayed("jobs", 3000, 10));
    advanceMs(3000);
    lessor.tick();
    replies.get(0).complete(Result.newBuilder().setCode(Code.FAILED_PRECONDITION).build());
    advanceMs(1000);
    lessor.tick();
    assertThat(proposed).hasSize(2);
  }

  @Test
  void aNewLeaderWaitsAFullLockDelayAgain() {
    lessor.onLeaderReady(5, List.of(), List.of(delayed("jobs", 3000, 10)));
    advanceMs(2999);
    lessor.tick();
    assertThat(proposed).isEmpty();
    advanceMs(1);
    lessor.tick();
    assertThat(proposed).singleElement()
        .satisfies(e -> assertThat(e.getEndLockDelay().getDelayStartIndex()).isEqualTo(10));
  }

  @Test
  void aLateReplyToAnEarlierEndLockDelayLeavesANewerDelayTimed() {
    lessor.onLeaderReady(4, List.of(), List.of());
    lessor.onLockDelay(delayed("jobs", 3000, 10));
    advanceMs(3000);
    lessor.tick(); // EndLockDelay #1, its reply is late
    advanceMs(1000);
    lessor.tick(); // the retried copy #2
    assertThat(proposed).hasSize(2);
    replies.get(1).complete(Result.getDefaultInstance()); // #2 applied: the name passed on
    lessor.onLockDelay(delayed("jobs", 3000, 20)); // the new holder's lease expired: a newer delay
    replies.get(0).complete(Result.getDefaultInstance()); // the late reply to #1
    advanceMs(3000);
    lessor.tick();
    assertThat(proposed).as("the newer delay still ends").hasSize(3);
    assertThat(proposed.get(2).getEndLockDelay().getDelayStartIndex()).isEqualTo(20);
  }

  static LeaseRecord checkpointed(long id, long ttlMs, long remainingMs, long renewedIndex) {
    return lease(id, ttlMs).toBuilder().setCheckpointRemainingMs(remainingMs).setRenewedIndex(renewedIndex).build();
  }

  List<LogEntry> checkpoints() {
    return proposed.stream().filter(LogEntry::hasLeaseCheckpoint).toList();
  }

  @Test
  void longLeasesAreCheckpointedEveryIntervalAtABoundedRateShortOnesNever() {
    List<LeaseRecord> leases = new ArrayList<>(LongStream.rangeClosed(1, 300).mapToObj(i -> lease(i, 10_000)).toList());
    leases.add(lease(1000, 4_000));
    lessor.onLeaderReady(6, leases, List.of());
    advanceMs(CHECKPOINT_MS - 1);
    lessor.tick();
    assertThat(checkpoints()).isEmpty();
    advanceMs(1);
    lessor.tick();
    lessor.tick();
    assertThat(checkpoints()).as("one entry in flight at a time").singleElement().satisfies(e -> {
      assertThat(e.getLeaseCheckpoint().getProposerTerm()).isEqualTo(6);
      assertThat(e.getLeaseCheckpoint().getCheckpointsList()).hasSize(Lessor.CHECKPOINTS_PER_TICK)
          .allSatisfy(c -> assertThat(c.getRemainingMs()).isEqualTo(10_000 - CHECKPOINT_MS));
    });
    replies.get(0).complete(Result.getDefaultInstance());
    lessor.tick();
    assertThat(checkpoints()).hasSize(2);
    assertThat(checkpoints().stream().flatMap(e -> e.getLeaseCheckpoint().getCheckpointsList().stream())
        .map(c -> c.getLeaseId())).as("every long lease once, the short one never").doesNotHaveDuplicates()
        .hasSize(300).doesNotContain(1000L);
  }

  @Test
  void aNewLeaderResumesFromTheCheckpointNotAFullTtl() {
    lessor.onLeaderReady(8, List.of(checkpointed(1, 10_000, 3_000, 0), lease(2, 10_000)), List.of());
    assertThat(lessor.confirm(8, List.of(), List.of(lease(1, 10_000), lease(2, 10_000)))).containsExactly(measured(3_000), measured(10_000));
    advanceMs(3_000);
    lessor.tick();
    assertThat(proposed.stream().filter(LogEntry::hasExpire)).singleElement()
        .satisfies(e -> assertThat(e.getExpire().getLeaseIdsList()).containsExactly(1L));
  }

  @Test
  void aCheckpointedLeaseNeedsAnEntryToRenewUntilARenewalClearedIt() {
    lessor.onLeaderReady(8, List.of(checkpointed(1, 10_000, 3_000, 0), lease(2, 10_000)), List.of());
    assertThat(lessor.checkpointed(1)).isTrue();
    assertThat(lessor.checkpointed(2)).isFalse();
    // the Confirm at index 50 renewed lease 1 and, at apply, cleared its checkpoint
    assertThat(lessor.confirm(8, List.of(lease(1, 10_000).toBuilder().setRenewedIndex(50).build()), List.of()))
        .containsExactly(measured(10_000));
    assertThat(lessor.checkpointed(1)).isFalse();
    advanceMs(5_000); // not renewed for half its TTL: checkpointed again
    lessor.tick();
    assertThat(lessor.checkpointed(1)).as("a proposed checkpoint counts before it applies").isTrue();
    assertThat(checkpoints()).singleElement().satisfies(e -> assertThat(e.getLeaseCheckpoint().getCheckpointsList())
        .filteredOn(c -> c.getLeaseId() == 1).singleElement()
        .satisfies(c -> assertThat(c.getRenewedIndex()).as("measured after that renewal").isEqualTo(50)));
  }

  @Test
  void aRenewalWithoutAnEntryCannotVouchForALeaseWhoseCheckpointIsOnItsWay() {
    lessor.onLeaderReady(8, List.of(lease(1, 10_000)), List.of());
    assertThat(lessor.checkpointed(1)).isFalse(); // a keepalive checks this, then is answered without an entry...
    advanceMs(CHECKPOINT_MS);
    lessor.tick(); // ...while the lessor measures and proposes a checkpoint
    assertThat(checkpoints()).hasSize(1);
    assertThat(lessor.confirm(8, List.of(lease(1, 10_000)), List.of())).as("no entry cleared it").containsExactly(UNVOUCHED);
    assertThat(lessor.confirm(8, List.of(lease(1, 10_000).toBuilder().setRenewedIndex(60).build()), List.of()))
        .as("a Confirm entry cleared it").containsExactly(measured(10_000));
  }

  /**
   * A keepalive answered under the leadership lease reads a snapshot that may be older than the apply thread's: it
   * can reach the lessor with the renewed index of a Confirm that a later Confirm has since superseded, after the
   * lessor measured a checkpoint at that later index. The older read clears nothing: that checkpoint will apply
   * (it matches the state's renewed index), so the keepalive cannot be vouched for without an entry, and the
   * lease's checkpoint and renewed index stay as they are (docs/architecture.md §3.8, rule 5).
   */
  @Test
  void anOlderReadsRenewedIndexCannotClearACheckpointMeasuredAfterANewerRenewal() {
    lessor.onLeaderReady(8, List.of(checkpointed(1, 10_000, 3_000, 0)), List.of());
    assertThat(lessor.confirm(8, List.of(lease(1, 10_000).toBuilder().setRenewedIndex(50).build()), List.of()))
        .containsExactly(measured(10_000));
    assertThat(lessor.confirm(8, List.of(lease(1, 10_000).toBuilder().setRenewedIndex(60).build()), List.of()))
        .containsExactly(measured(10_000));
    advanceMs(5_000); // not renewed for half its TTL: a checkpoint measured at renewed index 60 is on its way
    lessor.tick();
    assertThat(lessor.checkpointed(1)).isTrue();

    assertThat(lessor.confirm(8, List.of(lease(1, 10_000).toBuilder().setRenewedIndex(50).build()), List.of()))
        .as("read before the Confirm at 60 applied").containsExactly(UNVOUCHED);
    assertThat(lessor.checkpointed(1)).as("the checkpoint at 60 still counts").isTrue();
    replies.get(0).complete(Result.getDefaultInstance());
    advanceMs(2_000); // the next checkpoint is due, before the deadline
    lessor.tick();
    assertThat(checkpoints()).hasSize(2).last().satisfies(e -> assertThat(e.getLeaseCheckpoint().getCheckpointsList())
        .singleElement().satisfies(c -> assertThat(c.getRenewedIndex()).as("measured at the newest renewal")
            .isEqualTo(60)));
  }

  @Test
  void aLeaseItsClientKeepsRenewingIsNotCheckpointedAgainSoItsKeepalivesNeedNoEntry() {
    lessor.onLeaderReady(8, List.of(checkpointed(1, 9_000, 3_000, 0)), List.of());
    long renewedIndex = 50;
    lessor.confirm(8, List.of(lease(1, 9_000).toBuilder().setRenewedIndex(renewedIndex).build()), List.of());
    for (int i = 0; i < 10; i++) {
      advanceMs(3_000); // the client renews every ttl/3, through the leadership lease (no entry, same index)
      assertThat(lessor.checkpointed(1)).isFalse();
      assertThat(lessor.confirm(8, List.of(lease(1, 9_000).toBuilder().setRenewedIndex(renewedIndex).build()),
          List.of())).containsExactly(measured(9_000));
      lessor.tick();
    }
    assertThat(checkpoints()).isEmpty();
  }

  @Test
  void anEndedLeaseIsNoLongerTracked() {
    lessor.onLeaderReady(2, List.of(lease(1, 2000)), List.of());
    lessor.onEnded(List.of(1L));
    advanceMs(5000);
    lessor.tick();
    assertThat(proposed).isEmpty();
  }

  /**
   * A keepalive read from the state before the lease's Expire applied reaches the lease clock after it (the
   * apply thread ended the lease in between): the clock must not vouch for a lease it no longer tracks, nor
   * start tracking it again (etcd's Renew refuses a lease missing from its map).
   */
  @Test
  void aKeepaliveOfALeaseEndedByAnAppliedEntryIsRefusedAndNotTrackedAgain() {
    lessor.onLeaderReady(2, List.of(lease(1, 2000)), List.of());
    lessor.onEnded(List.of(1L));
    assertThat(lessor.confirm(2, List.of(lease(1, 2000)), List.of())).containsExactly(UNVOUCHED);
    assertThat(lessor.checkpointed(1)).as("unknown again: a local answer needs a round").isTrue();
    advanceMs(5000);
    lessor.tick();
    assertThat(proposed).as("not tracked again: no second Expire").isEmpty();
  }
}
