package io.regent.server.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.api.AlarmRequest;
import io.etcd.jetcd.api.LeaseGrantRequest;
import io.etcd.jetcd.api.LeaseGrpc;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.server.limits.ServerLimits;
import io.regent.server.replication.EntryFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The calls the etcd port serves itself are held to the API's per-connection limits (docs/operations.md "Limits"):
 * over the rate, RESOURCE_EXHAUSTED naming the limit. A relayed call is not counted here (the API counts it, once,
 * on the connection's upstream): past the same budget it still goes to the upstream, which here answers nothing.
 */
class GatewayLimitsTest {
  private static final int BURST = 2;
  /** One call per 1 000 s once the burst is spent: no token comes back during the test. */
  private static final ServerLimits SLOW = new ServerLimits(TestGateways.LIMITS.maxMessageBytes(), 1_000, 20_000,
      1_000_000, 1_000_000, 1_000, TestGateways.LIMITS.maxTtlMs(), 0.001, BURST, 10_000, 1_024);

  private EtcdGateway gateway;
  private ManagedChannel channel;
  private final TickOnDemand timers = new TickOnDemand();

  @BeforeEach
  void start() throws Exception {
    EtcdKv kv = new EtcdKv(entry -> new CompletableFuture<>(), EntryFormat.OLDEST, null, null, null, timers);
    gateway = TestGateways.start(() -> null, kv, SLOW);
    channel = Grpc.newChannelBuilder("127.0.0.1:" + gateway.port(), InsecureChannelCredentials.create()).build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    gateway.close();
    timers.shutdownNow();
  }

  @Test
  void servedCallsOverTheConnectionRateAreRefusedAndRelayedOnesAreLeftToTheApi() {
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
}
