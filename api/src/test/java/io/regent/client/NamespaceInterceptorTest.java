package io.regent.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.CampaignAllRequest;
import io.regent.api.v1.CampaignRequest;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaderRequest;
import io.regent.api.v1.LeaderResponse;
import io.regent.api.v1.LeaseTimeToLiveResponse;
import io.regent.api.v1.LedgerAppendRequest;
import io.regent.api.v1.ObserveResponse;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

class NamespaceInterceptorTest {
  private final NamespaceInterceptor ns = new NamespaceInterceptor("team-a/");

  @Test
  void requestsCarryThePrefixedNamesAtAnyDepthAndNothingElseChanges() {
    CampaignRequest campaign = CampaignRequest.newBuilder().setName("jobs").setLease(5).setRequestId("r1").build();
    assertThat(ns.rewrite(campaign, true))
        .isEqualTo(campaign.toBuilder().setName("team-a/jobs").build());
    assertThat(ns.rewrite(CampaignAllRequest.newBuilder().addNames("p0").addNames("p1").build(), true).getNamesList())
        .containsExactly("team-a/p0", "team-a/p1");
    LedgerAppendRequest ledger = LedgerAppendRequest.newBuilder().setKey("jobs").setToken(3).build();
    assertThat(ns.rewrite(ledger, true)).as("the ledger's keys are not Regent names").isSameAs(ledger);
    CampaignRequest empty = CampaignRequest.newBuilder().setLease(5).build();
    assertThat(ns.rewrite(empty, true).getName()).as("left for the server's INVALID_ARGUMENT").isEmpty();
  }

  @Test
  void repliesLoseThePrefixAndKeepOtherNamespacesNames() {
    LeaderKey held = LeaderKey.newBuilder().setName("team-a/jobs").setToken(9).build();
    ObserveResponse event = ns.rewrite(ObserveResponse.newBuilder().setName("team-a/jobs").setLeader(held).build(),
        false);
    assertThat(event.getName()).isEqualTo("jobs");
    assertThat(event.getLeader().getName()).isEqualTo("jobs");
    assertThat(event.getLeader().getToken()).isEqualTo(9);
    assertThat(ns.rewrite(LeaseTimeToLiveResponse.newBuilder().addNames("team-a/x").addNames("team-b/y").build(),
        false).getNamesList()).containsExactly("x", "team-b/y");
  }

  @Test
  void aClientWithANamespaceSendsItAndNeverShowsIt() throws Exception {
    Queue<String> asked = new ConcurrentLinkedQueue<>();
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new ElectionGrpc.ElectionImplBase() {
          @Override
          public void leader(LeaderRequest req, StreamObserver<LeaderResponse> obs) {
            asked.add(req.getName());
            obs.onNext(LeaderResponse.newBuilder()
                .setLeader(LeaderKey.newBuilder().setName(req.getName()).setToken(4)).build());
            obs.onCompleted();
          }
        }).build().start();
    try (RegentClient client = RegentClient.builder().endpoints(List.of("127.0.0.1:" + server.getPort()))
        .namespace("team-a/").build();
         RegentClient plain = RegentClient.builder().endpoints(List.of("127.0.0.1:" + server.getPort())).build()) {
      assertThat(client.elections().leader("jobs")).hasValueSatisfying(k -> assertThat(k.getName()).isEqualTo("jobs"));
      assertThat(plain.elections().leader("jobs")).hasValueSatisfying(k -> assertThat(k.getName()).isEqualTo("jobs"));
      assertThat(asked).containsExactly("team-a/jobs", "jobs");
    } finally {
      server.shutdownNow();
    }
  }
}
