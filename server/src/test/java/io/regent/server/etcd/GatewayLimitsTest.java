package io.regent.server.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.AlarmRequest;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.LeaseGrantRequest;
import io.etcd.jetcd.api.LeaseGrpc;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.PutResponse;
import io.grpc.Context;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.server.api.FirstReply;
import io.regent.server.limits.Admission;
import io.regent.server.limits.AdmissionLimits;
import io.regent.server.limits.ServerLimits;
import io.regent.server.replication.EntryFormat;
import io.regent.statemachine.apply.EntryCodec;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The calls the etcd port serves itself are held to the API's per-connection limits (docs/operations.md "Limits"):
 * over the rate or the calls in progress, RESOURCE_EXHAUSTED naming the limit; and to the node's admission, whose
 * per-identity rate counts every connection. A relayed call is not counted here
 * (the API counts it, once, on the connection's upstream): past the same budget it still goes to the upstream,
 * which here answers nothing.
 */
class GatewayLimitsTest {
  private static final int BURST = 2;
  /** One call per 1 000 s once the burst is spent: no token comes back during the test. */
  private static final ServerLimits SLOW = new ServerLimits(TestGateways.LIMITS.maxMessageBytes(), 1_000, 20_000,
      1_000_000, 1_000_000, 1_000, TestGateways.LIMITS.maxTtlMs(), 0.001, BURST, 10_000, 1_024);
  /** One call in progress per connection, at the default rate. */
  private static final ServerLimits ONE_AT_A_TIME = new ServerLimits(TestGateways.LIMITS.maxMessageBytes(), 1,
      20_000, 1_000_000, 1_000_000, 1_000, TestGateways.LIMITS.maxTtlMs(), 10_000, 10_000, 10_000, 1_024);

  private EtcdGateway gateway;
  private ManagedChannel channel;
  private final TickOnDemand timers = new TickOnDemand();

  /** A gateway with {@code limits} whose writes are proposed and never answered, as with no quorum. */
  private void start(ServerLimits limits, EntryFormat format) throws Exception {
    EtcdKv kv = new EtcdKv(entry -> new CompletableFuture<>(), format, null, null, null, timers);
    gateway = TestGateways.start(() -> null, kv, limits);
    channel = Grpc.newChannelBuilder("127.0.0.1:" + gateway.port(), InsecureChannelCredentials.create()).build();
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    gateway.close();
    timers.shutdownNow();
  }

  @Test
  void servedCallsOverTheConnectionRateAreRefusedAndRelayedOnesAreLeftToTheApi() throws Exception {
    start(SLOW, EntryFormat.OLDEST);
    var maintenance = MaintenanceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    for (int i = 0; i < BURST; i++) {
      assertThat(maintenance.alarm(AlarmRequest.getDefaultInstance()).getAlarmsList()).as("call %d", i).isEmpty();
    }
    assertThatThrownBy(() -> maintenance.alarm(AlarmRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
          assertThat(e.getStatus().getDescription()).contains("--max-request-rate");
        });
    var lease = LeaseGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    assertThatThrownBy(() -> lease.leaseGrant(LeaseGrantRequest.newBuilder().setTTL(10).build()))
        .as("relayed past the spent budget: refused by the unreachable upstream, not by the gateway's limit")
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
  }

  @Test
  void aServedCallOverTheCallsInProgressIsRefusedUntilTheOneInProgressEnds() throws Exception {
    start(ONE_AT_A_TIME, () -> EntryCodec.KV_VERSION);
    FirstReply<PutResponse> put = new FirstReply<>();
    Context.CancellableContext pending = Context.current().withCancellation();
    // a Put whose entry never commits stays in progress: the connection's one call
    pending.run(() -> KVGrpc.newStub(channel).put(PutRequest.newBuilder().setKey(ByteString.copyFromUtf8("k"))
        .build(), put));
    var maintenance = MaintenanceGrpc.newBlockingStub(channel);
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThatThrownBy(
        () -> maintenance.withDeadlineAfter(10, TimeUnit.SECONDS).alarm(AlarmRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
          assertThat(e.getStatus().getDescription()).contains("--max-calls-per-connection");
        }));
    assertThat(put.future()).as("the Put is still in progress").isNotDone();

    pending.cancel(null);
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(maintenance
        .withDeadlineAfter(10, TimeUnit.SECONDS).alarm(AlarmRequest.getDefaultInstance()).getAlarmsList())
        .as("served once the Put ended").isEmpty());
  }

  @Test
  void servedCallsOverTheIdentityRateAreRefusedWhateverTheirConnection() throws Exception {
    AdmissionLimits a = AdmissionLimits.DEFAULTS;
    AdmissionLimits twoCalls = new AdmissionLimits(a.maxBulkCalls(), a.maxBulkCallsPerIdentity(), 0.001, 2,
        a.maxLeasesPerIdentity(), a.maxNamesPerIdentity(), a.maxStreamsPerIdentity(), a.retryAfterMs(),
        a.priorityLanes());
    EtcdKv kv = new EtcdKv(entry -> new CompletableFuture<>(), EntryFormat.OLDEST, null, null, null, timers);
    gateway = TestGateways.start(() -> null, kv, TestGateways.LIMITS,
        new Admission(twoCalls, call -> null, System::nanoTime));
    for (int i = 0; i < 3; i++) {
      ManagedChannel own = Grpc.newChannelBuilder("127.0.0.1:" + gateway.port(), InsecureChannelCredentials.create())
          .build();
      try {
        var maintenance = MaintenanceGrpc.newBlockingStub(own).withDeadlineAfter(10, TimeUnit.SECONDS);
        if (i < 2) {
          assertThat(maintenance.alarm(AlarmRequest.getDefaultInstance()).getAlarmsList()).as("call %d", i).isEmpty();
        } else {
          assertThatThrownBy(() -> maintenance.alarm(AlarmRequest.getDefaultInstance()))
              .as("a third connection: its own budget is whole, the identity's is spent")
              .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                assertThat(e.getStatus().getDescription()).contains("--identity-request-rate");
              });
        }
      } finally {
        own.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }
}
