package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.Context;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.ObserveResponse;
import io.regent.client.RegentClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Elections on a real 3-node Ratis cluster: observe, leader failover, full restart. */
@Tag("cluster")
class ElectionClusterTest {
  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();
  LocalCluster cluster;

  @Test
  void observerSeesCurrentHolderThenEveryOwnershipChangeInLogOrder() throws Exception {
    cluster = clusters.start(3);
    cluster.awaitLeader();
    RegentClient client = cluster.client();
    long a = client.leases().grant(5_000);
    LeaderKey first = client.elections().campaign("jobs", a, ByteString.copyFromUtf8("node-a"));

    List<ObserveResponse> seen = new CopyOnWriteArrayList<>();
    client.elections().observe("jobs", 0, collect(seen));
    await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() >= 1);
    assertThat(seen.get(0).getKind()).isEqualTo(ObserveResponse.Kind.CURRENT);
    assertThat(seen.get(0).getLeader().getToken()).isEqualTo(first.getToken());

    long b = client.leases().grant(5_000);
    assertThat(client.elections().tryCampaign("jobs", b, ByteString.copyFromUtf8("node-b")).getElected()).isFalse();
    Thread waiter = new Thread(() -> client.elections().campaign("jobs", b, ByteString.copyFromUtf8("node-b")));
    waiter.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> client.leases().list().stream()
        .anyMatch(l -> l.getId() == b && l.getNamesList().contains("jobs")));
    client.elections().resign(first);
    waiter.join(10_000);

    await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() >= 3);
    assertThat(seen.subList(1, 3)).extracting(ObserveResponse::getKind)
        .containsExactly(ObserveResponse.Kind.RESIGNED, ObserveResponse.Kind.ELECTED);
    LeaderKey second = seen.get(2).getLeader();
    assertThat(second.getLease()).isEqualTo(b);
    assertThat(second.getToken()).isGreaterThan(first.getToken());
    assertThat(client.elections().leader("jobs")).contains(second);
  }

  @Test
  void afterTheRaftLeaderIsKilledTheNextGrantHasALargerToken() throws Exception {
    cluster = clusters.start(3);
    int leader = cluster.awaitLeader();
    RegentClient client = cluster.client();
    long a = client.leases().grant(3_000);
    long before = client.elections().campaign("jobs", a, ByteString.copyFromUtf8("a")).getToken();

    cluster.stopNode(leader);
    int next = cluster.awaitLeader();
    assertThat(next).isNotEqualTo(leader);
    long b = client.leases().grant(3_000);
    long after = client.elections().campaign("other", b, ByteString.copyFromUtf8("b")).getToken();
    assertThat(after).isGreaterThan(before);
  }

  @Test
  void afterAFullRestartTokensContinueAboveTheHighestIssued() throws Exception {
    cluster = clusters.start(3);
    cluster.awaitLeader();
    RegentClient client = cluster.client();
    long[] tokens = new long[5];
    for (int i = 0; i < 5; i++) {
      long lease = client.leases().grant(60_000);
      tokens[i] = client.elections().campaign("name-" + i, lease, ByteString.EMPTY).getToken();
    }
    long highest = java.util.Arrays.stream(tokens).max().orElseThrow();
    for (int i = 0; i < 3; i++) {
      cluster.stopNode(i);
    }
    for (int i = 0; i < 3; i++) {
      cluster.startNode(i);
    }
    cluster.awaitLeader();
    RegentClient again = cluster.client();
    // The holders survive the restart with the tokens they were granted (their leases were re-armed by
    // the new leader, not re-granted) ...
    for (int i = 0; i < 5; i++) {
      long token = tokens[i];
      assertThat(again.elections().leader("name-" + i)).as("name-" + i)
          .hasValueSatisfying(k -> assertThat(k.getToken()).isEqualTo(token));
    }
    // ... and a new grant gets a token above every token issued before.
    long lease = again.leases().grant(60_000);
    assertThat(again.elections().campaign("fresh", lease, ByteString.EMPTY).getToken()).isGreaterThan(highest);
  }

  @Test
  void aCancelledCampaignWithdrawsItsCandidacy() throws Exception {
    cluster = clusters.start(3);
    cluster.awaitLeader();
    RegentClient client = cluster.client();
    LeaderKey holder = client.elections().campaign("jobs", client.leases().grant(60_000), ByteString.copyFromUtf8("a"));
    long b = client.leases().grant(60_000);
    Context.CancellableContext ctx = Context.current().withCancellation();
    Thread waiter = new Thread(() -> ctx.run(() -> {
      try {
        client.elections().campaign("jobs", b, ByteString.copyFromUtf8("b"));
      } catch (RuntimeException cancelled) {
        // expected: the call is cancelled below
      }
    }));
    waiter.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> namesOf(client, b).contains("jobs"));
    ctx.cancel(null);
    await().atMost(Duration.ofSeconds(10)).until(() -> !namesOf(client, b).contains("jobs"));
    client.elections().resign(holder);
    assertThat(client.elections().leader("jobs")).isEmpty();
  }

  @Test
  void anObserverResumingAfterAnIndexGetsOnlyLaterChanges() throws Exception {
    cluster = clusters.start(3);
    cluster.awaitLeader();
    RegentClient client = cluster.client();
    LeaderKey first = client.elections().campaign("jobs", client.leases().grant(60_000), ByteString.copyFromUtf8("a"));
    client.elections().resign(first);
    LeaderKey second = client.elections().campaign("jobs", client.leases().grant(60_000), ByteString.copyFromUtf8("b"));

    List<ObserveResponse> resumed = new CopyOnWriteArrayList<>();
    client.elections().observe("jobs", first.getToken(), collect(resumed));
    await().atMost(Duration.ofSeconds(10)).until(() -> resumed.size() >= 2);
    assertThat(resumed).extracting(ObserveResponse::getKind)
        .containsExactly(ObserveResponse.Kind.RESIGNED, ObserveResponse.Kind.ELECTED);
    assertThat(resumed.get(1).getLeader()).isEqualTo(second);

    // A restarted node keeps history only from its restart on: older resumption points get the state.
    int restarted = (cluster.awaitLeader() + 1) % 3;
    cluster.stopNode(restarted);
    cluster.startNode(restarted);
    RegentClient viaRestarted = cluster.clientOf(restarted);
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(() -> viaRestarted.elections().leader("jobs").orElseThrow().equals(second));
    List<ObserveResponse> tooOld = new CopyOnWriteArrayList<>();
    viaRestarted.elections().observe("jobs", 1, collect(tooOld));
    await().atMost(Duration.ofSeconds(10)).until(() -> !tooOld.isEmpty());
    assertThat(tooOld.get(0).getCompacted()).as("index 1 predates the restarted node's event history").isTrue();
    assertThat(tooOld.get(0).getLeader()).isEqualTo(second);
  }

  private static List<String> namesOf(RegentClient client, long lease) {
    return client.leases().list().stream().filter(l -> l.getId() == lease).findFirst().orElseThrow().getNamesList();
  }

  static StreamObserver<ObserveResponse> collect(List<ObserveResponse> into) {
    return new StreamObserver<>() {
      @Override
      public void onNext(ObserveResponse value) {
        into.add(value);
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
