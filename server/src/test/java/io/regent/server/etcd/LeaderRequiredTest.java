package io.regent.server.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.AlarmRequest;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.PutRequest;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.AbstractStub;
import io.grpc.stub.MetadataUtils;
import io.regent.server.membership.RaftLeader;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * etcd's {@code hasleader} metadata on the etcd port ({@link LeaderRequired}): a gateway whose node knows no leader
 * (its leader supplier says so, as a node cut off from its cluster's would) refuses such a call with etcd's
 * UNAVAILABLE "etcdserver: no leader" before it does anything, and serves it once a leader is known; a call
 * without the metadata is served either way.
 */
class LeaderRequiredTest {
  private final AtomicReference<RaftLeader> leader = new AtomicReference<>(new RaftLeader("n2", null, 3));
  private final List<LogEntry.Builder> proposed = new CopyOnWriteArrayList<>();
  private EtcdGateway gateway;
  private ManagedChannel channel;
  private final TickOnDemand timers = new TickOnDemand();

  @BeforeEach
  void start() throws Exception {
    EtcdKv node = new EtcdKv(entry -> {
      proposed.add(entry);
      return CompletableFuture.completedFuture(Result.newBuilder().setIndex(42).build());
    }, () -> EntryCodec.MAX_VERSION, null, null, null, timers);
    gateway = TestGateways.start(leader::get, node);
    channel = Grpc.newChannelBuilder("127.0.0.1:" + gateway.port(), InsecureChannelCredentials.create()).build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    gateway.close();
    timers.shutdownNow();
  }

  private static <S extends AbstractStub<S>> S hasLeader(S stub, String value) {
    Metadata md = new Metadata();
    md.put(Metadata.Key.of("hasleader", Metadata.ASCII_STRING_MARSHALLER), value);
    return stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md))
        .withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  private MaintenanceGrpc.MaintenanceBlockingStub maintenance() {
    return MaintenanceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  private static final AlarmRequest LIST = AlarmRequest.newBuilder().setAction(AlarmRequest.AlarmAction.GET).build();

  @Test
  void aCallThatRequiresALeaderIsRefusedWithEtcdsTextWhileNoneIsKnownAndDoesNothing() {
    PutRequest put = PutRequest.newBuilder().setKey(ByteString.copyFromUtf8("k")).build();
    assertThatThrownBy(() -> hasLeader(KVGrpc.newBlockingStub(channel), "true").put(put))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
          assertThat(e.getStatus().getDescription()).isEqualTo("etcdserver: no leader");
        });
    assertThat(proposed).as("a refused put proposes nothing").isEmpty();
    leader.set(null); // a node whose Raft server is not up knows no leader either
    assertThatThrownBy(() -> hasLeader(MaintenanceGrpc.newBlockingStub(channel), "true").alarm(LIST))
        .hasMessage("UNAVAILABLE: etcdserver: no leader");
  }

  @Test
  void aCallWithoutTheRequirementOrWithALeaderKnownIsServed() {
    assertThat(maintenance().alarm(LIST).getAlarmsList()).isEmpty();
    assertThat(hasLeader(MaintenanceGrpc.newBlockingStub(channel), "false").alarm(LIST).getAlarmsList()).isEmpty();
    leader.set(new RaftLeader("n2", "n1", 3));
    assertThat(hasLeader(MaintenanceGrpc.newBlockingStub(channel), "true").alarm(LIST).getAlarmsList()).isEmpty();
    hasLeader(KVGrpc.newBlockingStub(channel), "true").put(PutRequest.newBuilder()
        .setKey(ByteString.copyFromUtf8("k")).build());
    assertThat(proposed).hasSize(1);
  }
}
