package io.regent.server.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.proto.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Leader-side lease time on a fake monotonic clock; the timer is driven by hand. */
class LessorTest {
  final AtomicLong now = new AtomicLong(1_000_000_000L);
  final List<LogEntry> proposed = new ArrayList<>();
  Lessor lessor;

  @BeforeEach
  void setUp() {
    lessor = new Lessor(now::get, TimeUnit.DAYS.toMillis(1));
    lessor.setProposer(e -> {
      proposed.add(e.build());
      return new CompletableFuture<Result>();
    });
  }

  @AfterEach
  void tearDown() {
    lessor.close();
  }

  static LeaseRecord lease(long id, long ttlMs) {
    return LeaseRecord.newBuilder().setId(id).setTtlMs(ttlMs).build();
  }

  void advanceMs(long ms) {
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
  }

  @Test
  void readinessReArmsEveryLeaseToAFullTtl() {
    lessor.onLeaderReady(3, List.of(lease(1, 2000), lease(2, 5000)), List.of());
    advanceMs(1500);
    long[] remaining = lessor.confirm(3, List.of(), List.of(lease(1, 2000), lease(2, 5000)));
    assertThat(remaining).containsExactly(500, 3500);
  }

  @Test
  void aKeepaliveConfirmedInTheLeadersTermRenewsToNowPlusTtl() {
    lessor.onLeaderReady(3, List.of(lease(1, 2000)), List.of());
    advanceMs(1900);
    assertThat(lessor.confirm(3, List.of(lease(1, 2000)), List.of())).containsExactly(2000);
    advanceMs(1900);
    lessor.expireDue();
    assertThat(proposed).isEmpty();
  }

  @Test
  void aLeaseRenewedManyTimesIsProposedForExpiryOnceAtItsLastDeadlineThenRetriedEachSecond() {
    lessor.onLeaderReady(3, List.of(lease(1, 2000)), List.of());
    for (int i = 0; i < 5; i++) {
      advanceMs(1000);
      lessor.confirm(3, List.of(lease(1, 2000)), List.of());
      lessor.expireDue();
    }
    assertThat(proposed).as("every earlier deadline was superseded").isEmpty();
    advanceMs(2000);
    lessor.expireDue();
    lessor.expireDue();
    assertThat(proposed).singleElement().satisfies(e -> assertThat(e.getExpire().getLeaseIdsList()).containsExactly(1L));
    advanceMs(1000);
    lessor.expireDue();
    assertThat(proposed).as("not applied after a second: proposed again").hasSize(2);
    lessor.onEnded(List.of(1L));
    advanceMs(5000);
    lessor.expireDue();
    assertThat(proposed).hasSize(2);
  }

  @Test
  void aConfirmOfAnotherTermOrBeforeReadinessCannotVouch() {
    assertThat(lessor.confirm(3, List.of(lease(1, 2000)), List.of())).containsExactly(-1);
    lessor.onLeaderReady(4, List.of(lease(1, 2000)), List.of());
    assertThat(lessor.confirm(3, List.of(lease(1, 2000)), List.of())).containsExactly(-1);
  }

  @Test
  void onceExpiryIsDecidedKeepalivesAreRefusedAndExpireCarriesTheTerm() {
    lessor.onLeaderReady(7, List.of(lease(1, 2000), lease(2, 9000)), List.of());
    advanceMs(2000);
    lessor.expireDue();
    assertThat(proposed).singleElement().satisfies(e -> {
      assertThat(e.getExpire().getLeaseIdsList()).containsExactly(1L);
      assertThat(e.getExpire().getProposerTerm()).isEqualTo(7);
    });
    assertThat(lessor.confirm(7, List.of(lease(1, 2000)), List.of())).containsExactly(-2);
    assertThat(lessor.confirm(7, List.of(), List.of(lease(1, 2000)))).containsExactly(-2);
  }

  @Test
  void aDeposedLeaderForgetsDeadlinesAndProposesNothing() {
    lessor.onLeaderReady(7, List.of(lease(1, 2000)), List.of());
    lessor.onNotLeader();
    advanceMs(10_000);
    lessor.expireDue();
    assertThat(proposed).isEmpty();
  }

  @Test
  void aMassExpiryCostsFewEntries() {
    List<LeaseRecord> many = LongStream.rangeClosed(1, 2500).mapToObj(i -> lease(i, 2000)).toList();
    lessor.onLeaderReady(2, many, List.of());
    advanceMs(2000);
    lessor.expireDue();
    assertThat(proposed).hasSize(3);
    assertThat(proposed.stream().mapToInt(e -> e.getExpire().getLeaseIdsCount()).sum()).isEqualTo(2500);
  }

  @Test
  void aLockDelayEndsWithAnEntryOfTheLeadersTermAfterTheDelay() {
    lessor.onLeaderReady(4, List.of(), List.of());
    lessor.onLockDelay(NameRecord.newBuilder().setName("jobs").setLockDelayMs(3000).build());
    advanceMs(2999);
    lessor.expireDue();
    assertThat(proposed).isEmpty();
    advanceMs(1);
    lessor.expireDue();
    assertThat(proposed).singleElement().satisfies(e -> {
      assertThat(e.getEndLockDelay().getName()).isEqualTo("jobs");
      assertThat(e.getEndLockDelay().getProposerTerm()).isEqualTo(4);
    });
  }

  @Test
  void aNewLeaderWaitsAFullLockDelayAgain() {
    lessor.onLeaderReady(5, List.of(),
        List.of(NameRecord.newBuilder().setName("jobs").setLockDelayMs(3000).build()));
    advanceMs(2999);
    lessor.expireDue();
    assertThat(proposed).isEmpty();
    advanceMs(1);
    lessor.expireDue();
    assertThat(proposed).hasSize(1);
  }

  @Test
  void anEndedLeaseIsNoLongerTracked() {
    lessor.onLeaderReady(2, List.of(lease(1, 2000)), List.of());
    lessor.onEnded(List.of(1L));
    advanceMs(5000);
    lessor.expireDue();
    assertThat(proposed).isEmpty();
  }
}
