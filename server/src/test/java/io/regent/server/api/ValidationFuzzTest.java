package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LeaderKey;
import io.regent.statemachine.apply.Applier;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Proclaim;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.store.RegentStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes the request validation of the gRPC handlers ({@link Validation}) with Jazzer: names of any Unicode
 * (unpaired surrogates included), values up to past the 64 KiB limit, any lease id, token and lock-delay.
 *
 * <p>Properties: validation either accepts or throws INVALID_ARGUMENT with a message, nothing else; and what
 * it accepts, apply never refuses as INVALID_ARGUMENT (the API and the state machine agree on the contract,
 * so a client never learns of a bad request only after it took a log entry). The Campaign and Proclaim a
 * handler would propose are applied to a temporary LMDB store holding the campaigning lease.
 */
class ValidationFuzzTest {
  static Path dir;
  static RegentStore store;

  @BeforeAll
  static void open() throws IOException {
    dir = Files.createTempDirectory("regent-fuzz");
    store = RegentStore.open(dir.resolve("lmdb"));
  }

  @AfterAll
  static void close() throws IOException {
    store.close();
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @FuzzTest(maxDuration = "20s")
  void validatedRequestsAreNeverRefusedAsInvalidAtApply(FuzzedDataProvider data) {
    String name = data.consumeString(data.consumeInt(0, 1100));
    ByteString value = ByteString.copyFrom(new byte[data.consumeInt(0, 66_000)]);
    long lease = data.consumeLong();
    long lockDelay = data.consumeLong();
    long token = data.consumeLong();
    if (accepted(() -> {
      Validation.name(name);
      Validation.value(value);
      Validation.lease(lease);
      Validation.lockDelay(lockDelay);
    })) {
      Result r = apply(lease, LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName(name).setLeaseId(lease)
          .setValue(value).setLockDelayMs(lockDelay)));
      assertThat(r.getCode()).as(r.getMessage()).isNotEqualTo(Code.INVALID_ARGUMENT);
    }
    LeaderKey key = LeaderKey.newBuilder().setName(name).setToken(token).build();
    if (accepted(() -> {
      Validation.key(key);
      Validation.value(value);
    })) {
      Result r = apply(1, LogEntry.newBuilder().setProclaim(Proclaim.newBuilder().setName(name).setToken(token)
          .setValue(value)));
      assertThat(r.getCode()).as(r.getMessage()).isNotEqualTo(Code.INVALID_ARGUMENT);
    }
  }

  /** True when {@code checks} pass; false when they refuse as documented; anything else fails the test. */
  private static boolean accepted(Runnable checks) {
    try {
      checks.run();
      return true;
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(e.getStatus().getDescription()).isNotBlank();
      return false;
    }
  }

  /**
   * Encodes {@code command} as the proposer does, applies it after {@code lease} to a state holding only that
   * lease, and undoes it.
   */
  private static Result apply(long lease, LogEntry.Builder command) {
    LogEntry entry = EntryCodec.decode(EntryCodec.encode(command, EntryCodec.MAX_VERSION));
    return store.write(txn -> {
      txn.putLease(LeaseRecord.newBuilder().setId(lease).setTtlMs(10_000).build());
      Result r = Applier.apply(txn, entry, lease == Long.MAX_VALUE ? lease : lease + 1, 1).result();
      txn.deleteLease(lease);
      txn.allNames().forEach(n -> txn.deleteName(n.getName()));
      return r;
    });
  }
}
