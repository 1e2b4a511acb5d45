package io.regent.etcdcompat;

import static io.regent.etcdcompat.Jetcd.bytes;
import static io.regent.etcdcompat.Jetcd.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Election;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.api.CampaignRequest;
import io.etcd.jetcd.api.CampaignResponse;
import io.etcd.jetcd.api.ElectionGrpc;
import io.etcd.jetcd.election.LeaderKey;
import io.etcd.jetcd.lock.LockResponse;
import io.etcd.jetcd.options.GetOption;
import io.grpc.Context;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The etcd port's Election and Lock services queue in the KV keyspace, as etcd's do (docs/migrating.md "etcd's
 * Election and Lock"), through a follower of a 3-node cluster: a jetcd Election and {@code etcdctl elect} on one
 * name take turns; the end of a holder's lease wakes the next in line; a waiting campaign the client cancels leaves
 * no key behind.
 */
@ExtendWith(EtcdCompatCluster.Shared.class)
@Tag("cluster")
class JetcdQueueTest {
  @TempDir
  static Path dir;
  static String follower;
  static Client client;

  @BeforeAll
  static void start(EtcdCompatCluster shared) {
    follower = shared.followerEndpoint();
    client = Client.builder().endpoints("http://" + follower).build();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
  }

  private static long keys(String prefix) throws Exception {
    return get(client.getKVClient().get(bytes(prefix), GetOption.builder().isPrefix(true).withCountOnly(true)
        .build())).getCount();
  }

  @Test
  void aJetcdElectionAndEtcdctlElectQueueTogether() throws Exception {
    Election election = client.getElectionClient();
    long a = get(client.getLeaseClient().grant(30)).getID();
    ByteSequence name = bytes("mixed-elect");
    LeaderKey first = get(election.campaign(name, a, bytes("jetcd"))).getLeader();
    try (Etcdctl.Started ctl = Etcdctl.start(dir, follower, "elect", "mixed-elect", "etcdctl")) {
      await().atMost(Duration.ofSeconds(Jetcd.WAIT_S)).until(() -> keys("mixed-elect/") == 2); // etcdctl queued
      assertThat(ctl.output()).as("etcdctl waits behind jetcd").doesNotContain("etcdctl");
      assertThat(get(election.leader(name)).getKv().getLease()).isEqualTo(a);

      get(election.resign(first));
      await().atMost(Duration.ofSeconds(Jetcd.WAIT_S))
          .untilAsserted(() -> assertThat(ctl.output()).as("etcdctl leads").contains("etcdctl"));
      var leader = get(election.leader(name)).getKv();
      assertThat(leader.getValue().toString(StandardCharsets.UTF_8)).isEqualTo("etcdctl");
      assertThat(leader.getCreateRevision()).as("the next leader's fencing token is larger")
          .isGreaterThan(first.getRevision());
    }
    await().atMost(Duration.ofSeconds(Jetcd.WAIT_S)).until(() -> keys("mixed-elect/") == 0); // etcdctl's session
  }

  @Test
  void theEndOfTheHoldersLeaseWakesTheNextInLine() throws Exception {
    Lease lease = client.getLeaseClient();
    long a = get(lease.grant(30)).getID();
    long b = get(lease.grant(30)).getID();
    Election election = client.getElectionClient();
    LeaderKey first = get(election.campaign(bytes("revoked-elect"), a, bytes("a"))).getLeader();
    CompletableFuture<io.etcd.jetcd.election.CampaignResponse> second = election.campaign(bytes("revoked-elect"), b,
        bytes("b"));
    LockResponse held = get(client.getLockClient().lock(bytes("revoked-lock"), a));
    CompletableFuture<LockResponse> next = client.getLockClient().lock(bytes("revoked-lock"), b);
    await().atMost(Duration.ofSeconds(Jetcd.WAIT_S))
        .until(() -> keys("revoked-elect/") == 2 && keys("revoked-lock/") == 2);
    assertThat(second).isNotDone();
    assertThat(next).isNotDone();

    get(lease.revoke(a)); // deletes a's keys in the same entry, which wakes b in both queues
    assertThat(get(second).getLeader().getRevision()).isGreaterThan(first.getRevision());
    assertThat(get(next).getKey().toString(StandardCharsets.UTF_8)).isEqualTo("revoked-lock/" + Long.toHexString(b));
    assertThat(get(next).getHeader().getRevision()).isGreaterThan(held.getHeader().getRevision());
    get(lease.revoke(b));
  }

  @Test
  void aWaitingCampaignCancelledByItsClientLeavesNoKey() throws Exception {
    Lease lease = client.getLeaseClient();
    long a = get(lease.grant(30)).getID();
    long b = get(lease.grant(30)).getID();
    ByteString name = ByteString.copyFromUtf8("cancelled-elect");
    get(client.getElectionClient().campaign(bytes("cancelled-elect"), a, bytes("a")));
    ManagedChannel channel = Grpc.newChannelBuilder(follower, InsecureChannelCredentials.create()).build();
    Context.CancellableContext call = Context.current().withCancellation();
    CompletableFuture<CampaignResponse> answer = new CompletableFuture<>();
    try {
      call.run(() -> ElectionGrpc.newStub(channel).campaign(CampaignRequest.newBuilder().setName(name).setLease(b)
          .setValue(ByteString.copyFromUtf8("b")).build(), new StreamObserver<>() {
            @Override
            public void onNext(CampaignResponse r) {
              answer.complete(r);
            }

            @Override
            public void onError(Throwable t) {
              answer.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
            }
          }));
      await().atMost(Duration.ofSeconds(Jetcd.WAIT_S)).until(() -> keys("cancelled-elect/") == 2); // b waits
      call.cancel(null);
      await().atMost(Duration.ofSeconds(Jetcd.WAIT_S)).until(() -> keys("cancelled-elect/") == 1);
      var left = get(client.getKVClient().get(bytes("cancelled-elect/"), GetOption.builder().isPrefix(true)
          .build())).getKvs();
      assertThat(left.get(0).getLease()).as("the leader's key stays").isEqualTo(a);
      assertThat(answer).isCompletedExceptionally();
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      get(lease.revoke(a));
      get(lease.revoke(b));
    }
  }
}
