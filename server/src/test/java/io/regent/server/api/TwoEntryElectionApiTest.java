package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.regent.api.v1.CampaignRequest;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaseInfo;
import io.regent.api.v1.LockGrpc;
import io.regent.api.v1.LockRequest;
import io.regent.api.v1.LockResponse;
import io.regent.api.v1.UnlockRequest;
import io.regent.client.LeaderElection;
import io.regent.client.RegentClient;
import io.regent.server.cluster.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The two-entry election over the API: Campaign with a TTL, Resign (and Unlock) that revokes the lease. */
@Tag("cluster")
class TwoEntryElectionApiTest {
  private static final ByteString V = ByteString.copyFromUtf8("v");

  @TempDir
  static Path dir;
  static LocalCluster cluster;
  static RegentClient client;

  @BeforeAll
  static void start() throws Exception {
    cluster = LocalCluster.start(1, dir);
    cluster.awaitLeader();
    client = cluster.client();
  }

  @AfterAll
  static void stop() throws Exception {
    if (shared != null) {
      shared.shutdownNow();
    }
    cluster.close();
  }

  @Test
  void campaignWithTtlElectsOnItsOwnLeaseAndResignRevokesIt() {
    CampaignResponse a = client.elections().campaignWithTtl("ttl/a", 60_000, V, 0);
    assertThat(a.getElected()).isTrue();
    assertThat(a.getLease()).isPositive().isEqualTo(a.getLeader().getLease()).isEqualTo(a.getLeader().getToken());
    CampaignResponse b = client.elections().campaignWithTtl("ttl/a", 60_000, V, 0);
    assertThat(b.getElected()).isFalse();
    assertThat(b.getLeader()).isEqualTo(a.getLeader());
    assertThat(leaseIds()).contains(a.getLease(), b.getLease());

    client.elections().resign(a.getLeader(), true);
    assertThat(leaseIds()).doesNotContain(a.getLease()).contains(b.getLease());
    LeaderKey next = client.elections().leader("ttl/a").orElseThrow();
    assertThat(next.getLease()).isEqualTo(b.getLease());
    assertThat(next.getToken()).isGreaterThan(a.getLeader().getToken());
    client.elections().resign(next, true);
    assertThat(leaseIds()).doesNotContain(b.getLease());
    assertThat(client.elections().leader("ttl/a")).isEmpty();
  }

  @Test
  void leaderElectionTakesTwoEntriesAndAWaiterFollowsOnClose() throws Exception {
    LeaderElection election = new LeaderElection(client);
    LeaderElection.Leadership first = election.campaign("ttl/le", V, 60_000, reason -> { });
    long firstIndex = first.token();
    CompletableFuture<LeaderElection.Leadership> second =
        CompletableFuture.supplyAsync(() -> election.campaign("ttl/le", V, 60_000, reason -> { }));
    // The waiter's own-lease campaign queued it (then it waits with that kept-alive lease).
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> leaseIds().size() >= 2
        && leaseIds().stream().anyMatch(id -> id > firstIndex));
    first.close();
    LeaderElection.Leadership next = second.get(30, TimeUnit.SECONDS);
    assertThat(leaseIds()).doesNotContain(first.key().getLease()).contains(next.key().getLease());
    // Campaign and resign-and-revoke: the successor's token is the index of the entry after the waiter's.
    assertThat(next.token()).isGreaterThan(firstIndex);
    next.close();
    assertThat(leaseIds()).doesNotContain(next.key().getLease());
  }

  @Test
  void lockWithTtlAndUnlockThatRevokes() {
    ManagedChannel ch = channel();
    LockResponse r = LockGrpc.newBlockingStub(ch).lock(LockRequest.newBuilder().setName("ttl/lock")
        .setOwner(V).setTtlMs(60_000).build());
    assertThat(r.getKey().getLease()).isEqualTo(r.getLease()).isPositive();
    LockResponse held = LockGrpc.newBlockingStub(ch).lock(LockRequest.newBuilder().setName("ttl/lock")
        .setOwner(V).setTtlMs(60_000).build());
    assertThat(held.hasKey()).isFalse();
    assertThat(held.getLease()).isPositive();
    LockGrpc.newBlockingStub(ch).unlock(UnlockRequest.newBuilder().setKey(r.getKey()).setRevokeLease(true).build());
    assertThat(leaseIds()).doesNotContain(r.getLease());
    assertThat(client.elections().leader("ttl/lock").orElseThrow().getLease()).isEqualTo(held.getLease());
    client.leases().revoke(held.getLease());
  }

  @Test
  void badTtlCampaignsAreRefusedAndChangeNothing() {
    long lease = client.leases().grant(60_000);
    try {
      for (long ttl : new long[] {-5, 1_000, 3_600_001}) {
        assertRejectedUnchanged(() -> client.elections().campaignWithTtl("ttl/bad", ttl, V, 0),
            Status.Code.INVALID_ARGUMENT);
      }
      assertRejectedUnchanged(() -> ElectionGrpc.newBlockingStub(channel()).campaign(CampaignRequest.newBuilder()
          .setName("ttl/bad").setLease(lease).setTtlMs(60_000).setValue(V).build()), Status.Code.INVALID_ARGUMENT);
      assertRejectedUnchanged(() -> client.elections().campaignWithTtl("", 60_000, V, 0), Status.Code.INVALID_ARGUMENT);
    } finally {
      client.leases().revoke(lease);
    }
  }

  @Test
  void noWaitCampaignWithTtlOnAHeldNameGrantsNothing() {
    CampaignResponse a = client.elections().campaignWithTtl("ttl/nowait", 60_000, V, 0);
    List<Long> before = leaseIds();
    CampaignResponse r = ElectionGrpc.newBlockingStub(channel()).campaign(CampaignRequest.newBuilder()
        .setName("ttl/nowait").setTtlMs(60_000).setNoWait(true).setValue(V).build());
    assertThat(r.getElected()).isFalse();
    assertThat(r.getLease()).isZero();
    assertThat(leaseIds()).isEqualTo(before);
    client.elections().resign(a.getLeader(), true);
  }

  private static ManagedChannel shared;

  private static synchronized ManagedChannel channel() {
    if (shared == null) {
      shared = NettyChannelBuilder.forTarget(client.endpoints().get(0)).usePlaintext().build();
    }
    return shared;
  }

  private static List<Long> leaseIds() {
    return client.leases().list().stream().map(LeaseInfo::getId).toList();
  }

  private static void assertRejectedUnchanged(ThrowingCallable call, Status.Code code) {
    List<Long> leases = leaseIds();
    assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
    assertThat(leaseIds()).isEqualTo(leases);
    assertThat(client.elections().leader("ttl/bad")).isEmpty();
  }
}
