package io.regent.etcdcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.CampaignRequest;
import io.etcd.jetcd.api.ElectionGrpc;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.LeaseGrantRequest;
import io.etcd.jetcd.api.LeaseGrpc;
import io.etcd.jetcd.api.ProclaimRequest;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.ResignRequest;
import io.etcd.jetcd.api.lock.LockGrpc;
import io.etcd.jetcd.api.lock.LockRequest;
import io.etcd.jetcd.api.lock.UnlockRequest;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LeaseInfo;
import io.regent.client.RegentClient;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Bad input on the etcd-compatible services: a clear status, and nothing changed in Regent's state. */
@ExtendWith(EtcdCompatCluster.Shared.class)
@Tag("cluster")
class BadInputTest {
  static EtcdCompatCluster cluster;
  static ManagedChannel channel;
  static RegentClient regent;

  @BeforeAll
  static void start(EtcdCompatCluster shared) throws Exception {
    cluster = shared;
    channel = Grpc.newChannelBuilder(cluster.followerEndpoint(), InsecureChannelCredentials.create()).build();
    regent = RegentClient.connect(cluster.apiEndpoints());
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (regent != null) {
      regent.close();
    }
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static Status.Code code(Runnable call) {
    try {
      call.run();
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
    throw new AssertionError("the call succeeded");
  }

  @Test
  void refusalsChangeNothing() {
    var lease = LeaseGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    var election = ElectionGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    var lock = LockGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    // Lease ids, not a count: the cluster is the module's shared one, where another class's lease may expire.
    Set<Long> before = leaseIds();

    assertThatThrownBy(() -> lease.leaseGrant(LeaseGrantRequest.newBuilder().setTTL(10).setID(42).build()))
        .hasMessageContaining("INVALID_ARGUMENT").hasMessageContaining("send ID 0");
    assertThat(code(() -> lease.leaseGrant(LeaseGrantRequest.newBuilder().setTTL(4_000).build())))
        .isEqualTo(Status.Code.OUT_OF_RANGE);
    assertThat(leaseIds()).as("no lease granted").isSubsetOf(before);

    long id = lease.leaseGrant(LeaseGrantRequest.newBuilder().setTTL(30).build()).getID();
    assertThat(code(() -> election.campaign(CampaignRequest.newBuilder().setLease(id).build())))
        .as("an empty name").isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(code(() -> election.campaign(CampaignRequest.newBuilder().setName(ByteString.copyFromUtf8("x"))
        .setLease(id + 1_000_000).build()))).as("a lease that does not exist").isEqualTo(Status.Code.NOT_FOUND);
    assertThat(code(() -> election.campaign(CampaignRequest.newBuilder().setName(ByteString.copyFromUtf8("x"))
        .build()))).as("no lease").isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(code(() -> lock.lock(LockRequest.newBuilder().setName(ByteString.copyFromUtf8("x"))
        .setLease(id + 1_000_000).build()))).as("a lease that does not exist").isEqualTo(Status.Code.NOT_FOUND);
    assertThat(code(() -> election.proclaim(ProclaimRequest.getDefaultInstance())))
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(code(() -> election.resign(ResignRequest.getDefaultInstance()))).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(code(() -> lock.unlock(UnlockRequest.getDefaultInstance()))).as("no key")
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(regent.elections().leader("x")).as("nobody holds the name").isEmpty();
    assertThat(KVGrpc.newBlockingStub(channel).range(RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8("x/"))
        .setRangeEnd(ByteString.copyFromUtf8("x0")).setCountOnly(true).build()).getCount())
        .as("no key queued under x/").isZero();
    Set<Long> granted = new HashSet<>(leaseIds());
    granted.removeAll(before);
    assertThat(granted).containsExactly(id);
  }

  private static Set<Long> leaseIds() {
    return regent.leases().list().stream().map(LeaseInfo::getId).collect(Collectors.toSet());
  }
}
