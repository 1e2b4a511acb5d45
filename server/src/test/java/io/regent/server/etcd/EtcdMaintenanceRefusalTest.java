package io.regent.server.etcd;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.api.AlarmRequest;
import io.etcd.jetcd.api.ClusterGrpc;
import io.etcd.jetcd.api.DefragmentRequest;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.MemberAddRequest;
import io.etcd.jetcd.api.MoveLeaderRequest;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.regent.server.replication.EntryFormat;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The etcd port's Cluster and Maintenance calls beyond what a client touches on connect answer UNIMPLEMENTED, the
 * description naming the call (docs/migrating.md "etcd's clients"), rather than a success that did nothing.
 */
class EtcdMaintenanceRefusalTest {
  private EtcdGateway gateway;
  private ManagedChannel channel;
  private final TickOnDemand timers = new TickOnDemand();

  @BeforeEach
  void start() throws Exception {
    EtcdKv kv = new EtcdKv(entry -> new CompletableFuture<>(), EntryFormat.OLDEST, null, null, null, timers);
    gateway = TestGateways.start(() -> null, kv);
    channel = Grpc.newChannelBuilder("127.0.0.1:" + gateway.port(), InsecureChannelCredentials.create()).build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    gateway.close();
    timers.shutdownNow();
  }

  @Test
  void callsNotServedAreUnimplementedAndNamed() {
    var maintenance = MaintenanceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    assertThatThrownBy(() -> maintenance.defragment(DefragmentRequest.getDefaultInstance()))
        .hasMessageStartingWith("UNIMPLEMENTED").hasMessageContaining("etcdserverpb.Maintenance/Defragment");
    assertThatThrownBy(() -> maintenance.moveLeader(MoveLeaderRequest.getDefaultInstance()))
        .hasMessageStartingWith("UNIMPLEMENTED").hasMessageContaining("etcdserverpb.Maintenance/MoveLeader");
    assertThatThrownBy(() -> maintenance.alarm(AlarmRequest.newBuilder()
        .setAction(AlarmRequest.AlarmAction.ACTIVATE).build()))
        .hasMessageStartingWith("UNIMPLEMENTED").hasMessageContaining("etcdserverpb.Maintenance/Alarm with action "
            + "ACTIVATE");
    var cluster = ClusterGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    assertThatThrownBy(() -> cluster.memberAdd(MemberAddRequest.getDefaultInstance()))
        .hasMessageStartingWith("UNIMPLEMENTED").hasMessageContaining("etcdserverpb.Cluster/MemberAdd");
  }
}
