package io.regent.server.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.Member;
import io.regent.api.v1.StatusRequest;
import io.regent.api.v1.StatusResponse;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A member's etcd client URL is what its own Status names ({@link ClientUrls}); a member that serves no etcd port,
 * has published no API address, refuses the connection or never answers (cut off for {@link
 * ClientUrls#TIMEOUT_MS}) is left out, and the answer still comes.
 */
class ClientUrlsTest {
  private final List<Server> servers = new ArrayList<>();

  @AfterEach
  void stop() throws InterruptedException {
    for (Server s : servers) {
      s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** A fake node's API whose Status names {@code etcdAddress}; null: one that never answers. */
  private String node(String etcdAddress) throws Exception {
    Server s = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0), InsecureServerCredentials.create())
        .addService(new ClusterGrpc.ClusterImplBase() {
          @Override
          public void status(StatusRequest req, StreamObserver<StatusResponse> obs) {
            if (etcdAddress != null) {
              obs.onNext(StatusResponse.newBuilder().setEtcdAddress(etcdAddress).build());
              obs.onCompleted();
            }
          }
        }).build().start();
    servers.add(s);
    return "127.0.0.1:" + s.getPort();
  }

  private static Member member(String id, String api) {
    return Member.newBuilder().setId(id).setApiAddress(api).build();
  }

  @Test
  void eachMemberNamesItsOwnAndThoseThatCannotAreLeftOut() throws Exception {
    List<Member> members = List.of(member("n1", node("127.0.0.1:2379")), member("n2", node("")),
        member("n3", "127.0.0.1:1"), member("n4", ""), member("n5", node(null)));
    Map<String, String> urls = ClientUrls.of(members).get(ClientUrls.TIMEOUT_MS + 10_000, TimeUnit.MILLISECONDS);
    assertThat(urls).containsExactly(Map.entry("n1", "127.0.0.1:2379"));
  }
}
