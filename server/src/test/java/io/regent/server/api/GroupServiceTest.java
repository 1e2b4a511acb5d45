package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.GroupStatusResponse;
import io.regent.api.v1.GroupWatchResponse;
import io.regent.api.v1.PartitionOwner;
import io.regent.api.v1.PartitionToken;
import io.regent.client.GroupClient;
import io.regent.client.RegentClient;
import io.regent.server.cluster.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.stream.Collectors;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Group service on a one-node cluster: join, watch, release, lease end, status and bad input. */
@Tag("cluster")
class GroupServiceTest {
  @TempDir
  static Path dir;
  static LocalCluster cluster;
  static RegentClient client;
  static GroupClient groups;

  @BeforeAll
  static void start() throws Exception {
    cluster = LocalCluster.start(1, dir);
    cluster.awaitLeader();
    client = cluster.client();
    groups = new GroupClient(client);
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
  }

  @Test
  void aMoveWaitsForTheReleaseAndTheWatcherSeesItInOrder() throws Exception {
    long a = client.leases().grant(600_000);
    long b = client.leases().grant(600_000);
    long joinA = groups.join("moves", "a", 6, a).getIndex();
    LinkedBlockingQueue<GroupWatchResponse> seenByB = new LinkedBlockingQueue<>();
    Runnable cancel = groups.watch("moves", "b", 0, collect(seenByB));
    try {
      assertThat(next(seenByB).getJoined()).isFalse();
      groups.join("moves", "b", 0, b);
      GroupWatchResponse waiting = next(seenByB);
      assertThat(waiting.getJoined()).isTrue();
      assertThat(waiting.getOwnedList()).isEmpty();
      assertThat(waiting.getIncomingList()).hasSize(3);

      GroupStatusResponse s = groups.status("moves", false);
      List<PartitionOwner> moving = s.getOwnersList().stream().filter(o -> o.getNext().equals("b")).toList();
      assertThat(moving).hasSize(3).allMatch(o -> o.getOwner().equals("a") && o.getToken() == joinA);
      Map<Integer, Long> tokens = moving.stream()
          .collect(Collectors.toMap(PartitionOwner::getPartition, PartitionOwner::getToken));
      long released = groups.release("moves", tokens);

      GroupWatchResponse owning = next(seenByB);
      assertThat(owning.getOwnedList()).extracting(PartitionToken::getToken).containsOnly(released);
      assertThat(owning.getOwnedList()).extracting(PartitionToken::getPartition)
          .containsExactlyInAnyOrderElementsOf(tokens.keySet());
      assertThat(released).isGreaterThan(joinA);
    } finally {
      cancel.run();
    }
  }

  @Test
  void aRevokedMembersPartitionsGoToTheOthersWithHigherTokens() {
    long a = client.leases().grant(600_000);
    long b = client.leases().grant(600_000);
    groups.join("revoked", "a", 4, a);
    long joinB = groups.join("revoked", "b", 4, b).getIndex();
    client.leases().revoke(a);
    GroupStatusResponse s = groups.status("revoked", false);
    assertThat(s.getMembersList()).extracting(m -> m.getMember()).containsExactly("b");
    assertThat(s.getOwnersList()).allMatch(o -> o.getOwner().equals("b") && o.getToken() >= joinB);
  }

  @Test
  void aJoinWithATtlGrantsTheLease() {
    long lease = groups.joinWithTtl("ttl", "solo", 2, 600_000).getLease();
    assertThat(client.leases().timeToLive(lease).getTtlMs()).isEqualTo(600_000);
    assertThat(groups.status("ttl", true).getOwnersList()).allMatch(o -> o.getOwner().equals("solo"));
  }

  @Test
  void badInputGetsItsStatusAndChangesNothing() {
    long a = client.leases().grant(600_000);
    long b = client.leases().grant(600_000);
    long join = groups.join("bad", "a", 4, a).getIndex();
    groups.join("bad", "b", 4, b);
    int toB = groups.status("bad", false).getOwnersList().stream().filter(o -> o.getNext().equals("b"))
        .findFirst().orElseThrow().getPartition();
    GroupStatusResponse before = groups.status("bad", false);
    assertRejected(() -> groups.join("bad", "c", 65_537, client.leases().grant(600_000)), Status.Code.INVALID_ARGUMENT);
    assertRejected(() -> groups.join("new", "c", 0, a), Status.Code.NOT_FOUND);
    assertRejected(() -> groups.joinWithTtl("bad", "c", 4, 1_000), Status.Code.INVALID_ARGUMENT);
    assertRejected(() -> groups.join("bad", "a", 4, b), Status.Code.FAILED_PRECONDITION);
    assertRejected(() -> groups.release("nope", Map.of(0, join)), Status.Code.NOT_FOUND);
    assertRejected(() -> groups.release("bad", Map.of(toB, join - 1)), Status.Code.FAILED_PRECONDITION);
    assertRejected(() -> groups.release("bad", Map.of(toB, 0L)), Status.Code.INVALID_ARGUMENT);
    assertRejected(() -> groups.leave("bad", "a", b), Status.Code.NOT_FOUND);
    assertRejected(() -> groups.status("nope", false), Status.Code.NOT_FOUND);
    assertRejected(() -> groups.status("", false), Status.Code.INVALID_ARGUMENT);
    assertThat(groups.status("bad", false).toBuilder().clearIndex().build())
        .isEqualTo(before.toBuilder().clearIndex().build());
  }

  private static void assertRejected(ThrowingCallable call, Status.Code code) {
    assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
  }

  private static GroupWatchResponse next(LinkedBlockingQueue<GroupWatchResponse> q) {
    return await().atMost(Duration.ofSeconds(10)).until(q::poll, r -> r != null);
  }

  private static StreamObserver<GroupWatchResponse> collect(LinkedBlockingQueue<GroupWatchResponse> q) {
    return new StreamObserver<>() {
      @Override
      public void onNext(GroupWatchResponse value) {
        q.add(value);
      }

      @Override
      public void onError(Throwable t) {
      }

      @Override
      public void onCompleted() {
      }
    };
  }
}
