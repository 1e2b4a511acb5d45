package io.regent.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.regent.api.v1.LedgerAppendRequest;
import io.regent.api.v1.LedgerEntry;
import io.regent.api.v1.LedgerGrpc;
import io.regent.api.v1.LedgerReadRequest;
import io.regent.fencing.FenceMetrics;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The fenced ledger over real gRPC on a free loopback port, and across restarts on the same LMDB data. */
class LedgerServerTest {
  @TempDir
  Path dir;
  private final MeterRegistry registry = new SimpleMeterRegistry();
  private LedgerServer server;
  private ManagedChannel channel;
  private LedgerGrpc.LedgerBlockingStub ledger;

  private void start(LedgerMode mode) throws Exception {
    stop();
    server = LedgerServer.start(new InetSocketAddress("127.0.0.1", 0), dir, mode, registry);
    channel = ManagedChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    ledger = LedgerGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      server.close();
    }
  }

  private long append(String key, long token, String entry) {
    return ledger.append(LedgerAppendRequest.newBuilder().setKey(key).setToken(token)
        .setEntry(ByteString.copyFromUtf8(entry)).build()).getPosition();
  }

  private List<LedgerEntry> read(String key) {
    return ledger.read(LedgerReadRequest.newBuilder().setKey(key).build()).getEntriesList();
  }

  private static List<Long> tokens(List<LedgerEntry> entries) {
    return entries.stream().map(LedgerEntry::getToken).toList();
  }

  private double rejections() {
    return registry.get(FenceMetrics.REJECTED).tag("store", "lmdb").counter().count();
  }

  private static void assertStale(ThrowingCallable call, long token, long highest) {
    assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
      assertThat(e.getStatus().getDescription())
          .contains("stale fencing token " + token).contains("highest admitted is " + highest);
    });
  }

  @Test
  void strictAdmitsIncreasingTokensAndRefusesAnyOther() throws Exception {
    start(LedgerMode.STRICT);
    assertThat(append("jobs", 3, "a")).isEqualTo(1);
    assertThat(append("jobs", 5, "b")).isEqualTo(2);
    assertStale(() -> append("jobs", 5, "again"), 5, 5);
    assertStale(() -> append("jobs", 4, "zombie"), 4, 5);
    assertThat(append("jobs", 9, "c")).isEqualTo(3);
    List<LedgerEntry> entries = read("jobs");
    assertThat(entries).extracting(LedgerEntry::getPosition).containsExactly(1L, 2L, 3L);
    assertThat(tokens(entries)).containsExactly(3L, 5L, 9L);
    assertThat(entries).extracting(e -> e.getEntry().toStringUtf8()).containsExactly("a", "b", "c");
    assertThat(rejections()).isEqualTo(2.0);
  }

  @Test
  void monotoneAdmitsTheHoldersTokenAgainButNoOlderOne() throws Exception {
    start(LedgerMode.MONOTONE);
    append("jobs", 5, "a");
    append("jobs", 5, "b");
    assertStale(() -> append("jobs", 4, "zombie"), 4, 5);
    assertThat(tokens(read("jobs"))).containsExactly(5L, 5L);
    assertThat(rejections()).isEqualTo(1.0);
  }

  @ParameterizedTest
  @EnumSource(value = LedgerMode.class, names = {"STRICT", "MONOTONE"})
  void reopeningTheDataDirectoryKeepsEntriesAndTheHighestToken(LedgerMode mode) throws Exception {
    start(mode);
    append("jobs", 7, "before");
    start(mode);
    assertStale(() -> append("jobs", 6, "zombie"), 6, 7);
    assertThat(append("jobs", 8, "after")).isEqualTo(2);
    assertThat(tokens(read("jobs"))).containsExactly(7L, 8L);
  }

  @Test
  void unfencedAdmitsAStaleTokenTheNegativeControl() throws Exception {
    start(LedgerMode.UNFENCED);
    append("jobs", 9, "new holder");
    assertThat(append("jobs", 4, "zombie")).isEqualTo(2);
    assertThat(tokens(read("jobs"))).containsExactly(9L, 4L);
    assertThat(registry.find(FenceMetrics.REJECTED).counter()).isNull();
  }

  @Test
  void keysAreSeparateAndReadInPositionOrderPastOneByte() throws Exception {
    start(LedgerMode.MONOTONE);
    for (int i = 1; i <= 300; i++) {
      append(i % 2 == 0 ? "even" : "odd", i, "e" + i);
    }
    List<LedgerEntry> even = read("even");
    assertThat(even).hasSize(150);
    assertThat(even).extracting(LedgerEntry::getPosition).isSorted().startsWith(1L).endsWith(150L);
    assertThat(tokens(even)).isSorted().allMatch(t -> t % 2 == 0);
    assertThat(read("odd")).hasSize(150);
    assertThat(read("never")).isEmpty();
  }

  @Test
  void badInputIsInvalidAndStoresNothing() throws Exception {
    start(LedgerMode.STRICT);
    for (ThrowingCallable bad : List.<ThrowingCallable>of(() -> append("", 1, "x"),
        () -> append("k".repeat(1025), 1, "x"), () -> append("jobs", 0, "x"),
        () -> append("jobs", 1, "x".repeat(64 * 1024 + 1)), () -> read(""))) {
      assertThatThrownBy(bad).isInstanceOfSatisfying(StatusRuntimeException.class,
          e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    }
    assertThat(read("jobs")).isEmpty();
  }

  @Test
  void servesGrpcHealth() throws Exception {
    start(LedgerMode.STRICT);
    assertThat(HealthGrpc.newBlockingStub(channel).check(HealthCheckRequest.getDefaultInstance()).getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }
}
