package io.regent.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.regent.api.v1.LedgerAppendRequest;
import io.regent.api.v1.LedgerAppendResponse;
import io.regent.api.v1.LedgerEntry;
import io.regent.api.v1.LedgerGrpc;
import io.regent.api.v1.LedgerReadRequest;
import io.regent.fencing.IdempotencyKeys;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.threeten.extra.MutableClock;

/**
 * The ledger's idempotency keys over real gRPC: a retried append is stored once and answered with its position.
 *
 * <p>The ledger's LMDB store ({@code LedgerStore}) is a third implementation of the rules of {@link
 * IdempotencyKeys}, not a {@code FenceStore}: the api module's {@code IdempotencyContract}, which covers the
 * in-memory and JDBC stores, does not run against it (binding it from here would need a test-jar of the api
 * module), so nothing this class proves is proved elsewhere for the same store, and it keeps every rule. What it
 * adds to the contract is the ledger's own: the gRPC statuses ({@code ALREADY_EXISTS}, {@code
 * FAILED_PRECONDITION}, {@code INVALID_ARGUMENT}), {@code replayed}, keys kept across a restart, and appends
 * without a key never merged. The CLI's test of {@code --idempotency-key} relies on this class for the rules.
 */
class LedgerIdempotencyTest {
  @TempDir
  Path dir;
  private final MutableClock clock = MutableClock.of(Instant.parse("2024-05-01T12:00:00Z"), ZoneOffset.UTC);
  private LedgerServer server;
  private ManagedChannel channel;
  private LedgerGrpc.LedgerBlockingStub ledger;

  private void start(LedgerMode mode) throws Exception {
    start(mode, IdempotencyKeys.DEFAULT_RETENTION);
  }

  private void start(LedgerMode mode, Duration retention) throws Exception {
    stop();
    server = LedgerServer.start(new InetSocketAddress("127.0.0.1", 0), dir, mode, new SimpleMeterRegistry(),
        retention, clock);
    channel = ManagedChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    ledger = LedgerGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      server.close();
      channel = null;
    }
  }

  private LedgerAppendResponse append(String key, long token, String entry, String idempotencyKey) {
    return ledger.append(LedgerAppendRequest.newBuilder().setKey(key).setToken(token)
        .setEntry(ByteString.copyFromUtf8(entry)).setIdempotencyKey(idempotencyKey).build());
  }

  private List<String> read(String key) {
    return ledger.read(LedgerReadRequest.newBuilder().setKey(key).build()).getEntriesList().stream()
        .map(LedgerEntry::getEntry).map(ByteString::toStringUtf8).toList();
  }

  private static void assertStatus(Runnable call, Status.Code code, String... contains) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(code);
      for (String c : contains) {
        assertThat(e.getStatus().getDescription()).contains(c);
      }
    });
  }

  @ParameterizedTest
  @EnumSource(LedgerMode.class)
  void aRetryWithTheSameKeyIsAnsweredWithTheFirstPositionAndStoredOnce(LedgerMode mode) throws Exception {
    start(mode);
    append("jobs", 3, "before", "");
    LedgerAppendResponse first = append("jobs", 5, "pay 10", "pay-1");
    assertThat(first.getPosition()).isEqualTo(2);
    assertThat(first.getReplayed()).isFalse();
    for (int i = 0; i < 2; i++) { // strict mode would refuse token 5 again: the record answers first
      LedgerAppendResponse retry = append("jobs", 5, "pay 10", "pay-1");
      assertThat(retry.getPosition()).isEqualTo(2);
      assertThat(retry.getReplayed()).isTrue();
    }
    assertThat(read("jobs")).containsExactly("before", "pay 10");
  }

  @Test
  void theSameKeyWithAnotherEntryIsAlreadyExistsNamingTheKey() throws Exception {
    start(LedgerMode.MONOTONE);
    append("jobs", 5, "pay 10", "pay-1");
    assertStatus(() -> append("jobs", 6, "pay 20", "pay-1"), Status.Code.ALREADY_EXISTS,
        "idempotency key 'pay-1'", "'jobs'", "another request");
    assertThat(read("jobs")).containsExactly("pay 10");
    assertThat(append("jobs", 5, "pay 10", "pay-1").getReplayed()).isTrue();
  }

  @Test
  void aStaleTokenIsStillRefusedAndItsKeyNotRecorded() throws Exception {
    start(LedgerMode.STRICT);
    append("jobs", 9, "new holder", "a");
    assertStatus(() -> append("jobs", 4, "zombie", "b"), Status.Code.FAILED_PRECONDITION,
        "stale fencing token 4", "highest admitted is 9");
    assertThat(server.idempotencyKeys()).isOne();
    LedgerAppendResponse later = append("jobs", 10, "zombie", "b");
    assertThat(later.getReplayed()).isFalse();
    assertThat(read("jobs")).containsExactly("new holder", "zombie");
  }

  @Test
  void aRetryAfterTheTokenWasOvertakenIsReplayedNotRefused() throws Exception {
    start(LedgerMode.STRICT);
    append("jobs", 5, "pay 10", "pay-1"); // stored; say the answer was lost
    append("jobs", 8, "next holder", "");
    LedgerAppendResponse retry = append("jobs", 5, "pay 10", "pay-1");
    assertThat(retry.getPosition()).isEqualTo(1);
    assertThat(retry.getReplayed()).isTrue();
    assertThat(read("jobs")).containsExactly("pay 10", "next holder");
  }

  @Test
  void keysSurviveARestartOnTheSameData() throws Exception {
    start(LedgerMode.STRICT);
    append("jobs", 5, "pay 10", "pay-1");
    start(LedgerMode.STRICT);
    LedgerAppendResponse retry = append("jobs", 5, "pay 10", "pay-1");
    assertThat(retry.getPosition()).isEqualTo(1);
    assertThat(retry.getReplayed()).isTrue();
    assertThat(read("jobs")).containsExactly("pay 10");
  }

  @Test
  void keysExpireAfterTheRetention() throws Exception {
    start(LedgerMode.MONOTONE, Duration.ofHours(1));
    append("jobs", 5, "pay 10", "pay-1");
    append("jobs", 5, "pay 11", "pay-2");
    clock.add(Duration.ofHours(1).minusMillis(1));
    assertThat(append("jobs", 5, "pay 10", "pay-1").getReplayed()).isTrue();
    assertThat(server.purgeExpiredIdempotencyKeys()).isZero();
    clock.add(Duration.ofMillis(1));
    LedgerAppendResponse fresh = append("jobs", 5, "pay 30", "pay-1"); // forgotten: a new append now
    assertThat(fresh.getReplayed()).isFalse();
    assertThat(fresh.getPosition()).isEqualTo(3);
    // the append dropped pay-2's expired record, and pay-1's old one was replaced
    assertThat(server.idempotencyKeys()).isOne();
    assertThat(server.purgeExpiredIdempotencyKeys()).isZero();
    assertThat(read("jobs")).containsExactly("pay 10", "pay 11", "pay 30");
  }

  @Test
  void keysAreScopedToTheLedgerKeyAndAppendsWithoutOneAreNeverMerged() throws Exception {
    start(LedgerMode.MONOTONE);
    assertThat(append("a", 1, "x", "k").getReplayed()).isFalse();
    assertThat(append("b", 1, "x", "k").getReplayed()).isFalse();
    append("a", 1, "x", "");
    append("a", 1, "x", "");
    assertThat(read("a")).containsExactly("x", "x", "x");
    assertThat(read("b")).containsExactly("x");
  }

  @Test
  void aBadIdempotencyKeyIsInvalidAndStoresNothing() throws Exception {
    start(LedgerMode.MONOTONE);
    assertStatus(() -> append("jobs", 1, "x", "k".repeat(256)), Status.Code.INVALID_ARGUMENT, "255");
    assertStatus(() -> append("jobs", 1, "x", "   "), Status.Code.INVALID_ARGUMENT, "blank");
    assertThat(read("jobs")).isEmpty();
    assertThat(append("jobs", 1, "x", "k".repeat(255)).getPosition()).isEqualTo(1);
  }
}
