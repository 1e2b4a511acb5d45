package io.regent.server.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.LeaseGrantRequest;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LockGrpc;
import io.regent.server.etcd.EtcdGateway;
import io.regent.server.etcd.EtcdKv;
import io.regent.server.limits.Admission;
import io.regent.server.limits.AdmissionLimits;
import io.regent.server.limits.ServerLimits;
import io.regent.server.replication.EntryFormat;
import io.regent.server.single.SingleWriterServer;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every gRPC method a node serves has one declaration in {@link MethodRules}: the API's and the etcd gateway's
 * servers check each method of every service they bind when they are built, and refuse to start otherwise.
 */
class MethodRulesTest {
  @Test
  void everyMethodOfEveryServiceTheApiBindsIsDeclared(@TempDir Path dir) {
    // the single writer builds the same ApiServer as a Raft node
    assertThatCode(() -> SingleWriterServer.start("127.0.0.1", 0, dir).close()).doesNotThrowAnyException();
  }

  @Test
  void everyMethodOfEveryServiceTheEtcdGatewayBindsIsDeclared() {
    ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    EtcdKv kv = new EtcdKv(entry -> new CompletableFuture<>(), EntryFormat.OLDEST, null, null, null, timers);
    assertThatCode(() -> EtcdGateway.start(new InetSocketAddress("127.0.0.1", 0), "127.0.0.1:1", () -> null, 1_000,
        1_000, kv, ServerLimits.DEFAULTS, new Admission(AdmissionLimits.DEFAULTS, call -> null, System::nanoTime))
        .close()).doesNotThrowAnyException();
    timers.shutdownNow();
  }

  /** Negative control: a service with one method declared nowhere is refused, and the refusal names it. */
  @Test
  void aMethodDeclaredNowhereIsRefused() {
    MethodDescriptor<LeaseGrantRequest, LeaseGrantRequest> undeclared = MethodDescriptor
        .<LeaseGrantRequest, LeaseGrantRequest>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(LeaseGrpc.SERVICE_NAME, "Undeclared"))
        .setRequestMarshaller(ProtoUtils.marshaller(LeaseGrantRequest.getDefaultInstance()))
        .setResponseMarshaller(ProtoUtils.marshaller(LeaseGrantRequest.getDefaultInstance())).build();
    ServerServiceDefinition service = ServerServiceDefinition.builder(LeaseGrpc.SERVICE_NAME)
        .addMethod(undeclared, ServerCalls.asyncUnaryCall((req, obs) -> { })).build();
    assertThatThrownBy(() -> MethodRules.requireDeclared(List.of(service))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("regent.v1.Lease/Undeclared");
    assertThat(MethodRules.of("regent.v1.Lease/Undeclared")).isEqualTo(MethodRules.UNDECLARED);
    assertThat(MethodRules.UNDECLARED.lane()).isEqualTo(Lane.BULK);
    assertThat(MethodRules.UNDECLARED.right()).isEqualTo(Right.MEMBER);
  }

  @Test
  void theTableSaysWhatTheLanesAndRightsAre() {
    MethodRule keepAlive = MethodRules.of(LeaseGrpc.getKeepAliveMethod().getFullMethodName());
    assertThat(keepAlive.lane()).isEqualTo(Lane.PRIORITY);
    assertThat(keepAlive.renewsLeases()).isTrue();
    assertThat(MethodRules.of(LeaseGrpc.getGrantMethod().getFullMethodName()).renewsLeases()).isFalse();
    assertThat(MethodRules.of(ElectionGrpc.getCampaignMethod().getFullMethodName()).lane()).isEqualTo(Lane.BULK);
    assertThat(MethodRules.of(LockGrpc.getUnlockMethod().getFullMethodName()).right()).isEqualTo(Right.LOCK);
    assertThat(MethodRules.of(HealthGrpc.getCheckMethod().getFullMethodName()).open()).isTrue();
    MethodRule put = MethodRules.of(io.etcd.jetcd.api.KVGrpc.getPutMethod().getFullMethodName());
    assertThat(put.right()).as("etcd's KV writes").isEqualTo(Right.KV);
    assertThat(put.nameOf().apply(io.etcd.jetcd.api.PutRequest.newBuilder()
        .setKey(com.google.protobuf.ByteString.copyFromUtf8("jobs/a")).build())).isEqualTo("jobs/a");
    assertThat(MethodRules.of(io.etcd.jetcd.api.KVGrpc.getRangeMethod().getFullMethodName()).right())
        .isEqualTo(Right.READ);
  }
}
