package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.ObserveResponse;
import io.regent.client.LeaseKeeper;
import io.regent.client.RegentClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Lease expiry edge cases on a real 3-node cluster with 2 s TTLs: the module's shared cluster, each test on a name
 * of its own (docs/testing.md, "Clusters").
 */
@ExtendWith(SharedCluster.class)
@Tag("cluster")
class LeaseClusterTest {
  static RegentClient client;
  final String jobs = SharedCluster.name("jobs");

  @BeforeAll
  static void connect(LocalCluster shared) {
    client = shared.client();
  }

  @Test
  void keepAliveManyRenewsEveryLiveLeaseInOneCallAndReportsTheGoneAsZero() {
    long a = client.leases().grant(2_000);
    long b = client.leases().grant(3_000);
    long revoked = client.leases().grant(2_000);
    client.leases().revoke(revoked);
    List<Long> ids = List.of(a, b, revoked, 999_999L);
    // Let a's clock run down, then renew: its remaining time must jump back up to (nearly) its full TTL.
    await().atMost(Duration.ofSeconds(10)).until(() -> client.leases().timeToLive(a).getRemainingMs() < 1_000);
    assertThat(client.leases().keepAliveMany(ids, 5_000)).containsExactly(
        java.util.Map.entry(a, 2_000L), java.util.Map.entry(b, 3_000L), java.util.Map.entry(revoked, 0L),
        java.util.Map.entry(999_999L, 0L));
    assertThat(client.leases().timeToLive(a).getRemainingMs()).as("renewed by the call").isGreaterThan(1_000);
  }

  @Test
  void keepAliveManyRefusesNoIdOrTooManyAndRenewsNothing() {
    long a = client.leases().grant(2_000);
    assertThatThrownBy(() -> client.leases().keepAliveMany(List.of(), 5_000))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    List<Long> tooMany = java.util.stream.LongStream.rangeClosed(1, 10_001).boxed().toList();
    assertThatThrownBy(() -> client.leases().keepAliveMany(tooMany, 5_000))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).contains("10001 lease ids");
        });
    assertThat(client.leases().timeToLive(a).getRemainingMs()).isBetween(0L, 2_000L);
  }

  @Test
  void aWaitingCandidateWhoseLeaseExpiredIsNeverGrantedTheName() throws Exception {
    try (LeaseKeeper holder = LeaseKeeper.grant(client, 2_000, reason -> { })) {
      LeaderKey key = client.elections().campaign(jobs, holder.leaseId(), ByteString.copyFromUtf8("a"));
      List<ObserveResponse> seen = new CopyOnWriteArrayList<>();
      client.elections().observe(jobs, 0, ElectionClusterTest.collect(seen));
      long waiter = client.leases().grant(2_000); // never kept alive
      CompletableFuture<LeaderKey> campaign = CompletableFuture.supplyAsync(
          () -> client.elections().campaign(jobs, waiter, ByteString.copyFromUtf8("b")));
      assertThat(campaign).failsWithin(Duration.ofSeconds(15)).withThrowableThat()
          .havingRootCause().isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));

      client.elections().resign(key);
      assertThat(client.elections().leader(jobs)).isEmpty();
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.stream()
          .anyMatch(r -> r.getKind() == ObserveResponse.Kind.RESIGNED));
      assertThat(seen).noneMatch(r -> r.getKind() == ObserveResponse.Kind.ELECTED);
    }
  }

  @Test
  void onceTheLeaderHasExpiredALeaseItsKeepaliveAnswersNotFound() {
    long lease = client.leases().grant(2_000);
    await().atMost(Duration.ofSeconds(15)).until(
        () -> client.leases().list().stream().noneMatch(l -> l.getId() == lease));
    assertThatThrownBy(() -> client.leases().keepAlive(lease, 5_000))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
  }

  @Test
  void anExpiredHolderPassesTheNameToTheNextLiveCandidateWithALargerToken() throws Exception {
    long a = client.leases().grant(2_000);
    LeaderKey first = client.elections().campaign(jobs, a, ByteString.copyFromUtf8("a"));
    try (LeaseKeeper b = LeaseKeeper.grant(client, 2_000, reason -> { })) {
      LeaderKey second = client.elections().campaign(jobs, b.leaseId(), ByteString.copyFromUtf8("b"));
      assertThat(second.getLease()).isEqualTo(b.leaseId());
      assertThat(second.getToken()).isGreaterThan(first.getToken());
    }
  }

  @Test
  void aLockDelayKeepsTheNameUnownedAfterTheHolderExpiresUntilALaterEntry() throws Exception {
    long delayMs = 2_000;
    long a = client.leases().grant(2_000); // never kept alive
    client.elections().campaign(jobs, a, ByteString.copyFromUtf8("a"), delayMs);
    List<Seen> seen = new CopyOnWriteArrayList<>();
    client.elections().observe(jobs, 0, timed(seen));
    try (LeaseKeeper b = LeaseKeeper.grant(client, 2_000, reason -> { })) {
      LeaderKey second = client.elections().campaign(jobs, b.leaseId(), ByteString.copyFromUtf8("b"));
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() >= 3);
      Seen expired = seen.get(1);
      Seen elected = seen.get(2);
      assertThat(expired.event().getKind()).isEqualTo(ObserveResponse.Kind.EXPIRED);
      assertThat(elected.event().getKind()).isEqualTo(ObserveResponse.Kind.ELECTED);
      // Without the delay the next candidate would be elected by the Expire entry itself.
      assertThat(elected.event().getIndex()).isGreaterThan(expired.event().getIndex());
      assertThat(second.getToken()).isEqualTo(elected.event().getIndex());
      // And the name stayed free for the delay: the leader proposes the entry ending it only when the
      // delay has run from the Expire's apply. Half of it allows for an Expire event delivered late.
      assertThat(Duration.ofNanos(elected.nanos() - expired.nanos()))
          .as("time from EXPIRED to ELECTED on the observe stream")
          .isGreaterThanOrEqualTo(Duration.ofMillis(delayMs / 2));
    }
  }

  /** An observe event and when it arrived ({@link System#nanoTime()}). */
  record Seen(ObserveResponse event, long nanos) {
  }

  static StreamObserver<ObserveResponse> timed(List<Seen> into) {
    return new StreamObserver<>() {
      @Override
      public void onNext(ObserveResponse value) {
        into.add(new Seen(value, System.nanoTime()));
      }

      @Override
      public void onError(Throwable t) {
      }

      @Override
      public void onCompleted() {
      }
    };
  }

  @Test
  void aLeaseKeptAliveSurvivesManyTtls() throws Exception {
    List<String> lost = new CopyOnWriteArrayList<>();
    try (LeaseKeeper keeper = LeaseKeeper.grant(client, 2_000, lost::add)) {
      LeaderKey key = client.elections().campaign(jobs, keeper.leaseId(), ByteString.EMPTY);
      long until = System.nanoTime() + Duration.ofSeconds(7).toNanos();
      await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() > until);
      assertThat(lost).isEmpty();
      assertThat(keeper.isValid()).isTrue();
      assertThat(client.elections().leader(jobs)).contains(key);
    }
  }
}
