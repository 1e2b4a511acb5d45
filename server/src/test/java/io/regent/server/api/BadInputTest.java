package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaseInfo;
import io.regent.client.RegentClient;
import io.regent.server.cluster.LocalCluster;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input gets the documented gRPC status and changes nothing (docs/architecture.md §7). */
class BadInputTest {
  @TempDir
  static Path dir;
  static LocalCluster cluster;
  static RegentClient client;
  static LeaderKey holder;

  @BeforeAll
  static void start() throws Exception {
    cluster = LocalCluster.start(1, dir);
    cluster.awaitLeader();
    client = cluster.client();
    holder = client.campaign("jobs", client.grant(600_000), ByteString.copyFromUtf8("a"));
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
  }

  @Test
  void ttlZeroNegativeBelowTheMinimumOrAboveAnHourIsInvalid() {
    for (long ttl : new long[] {0, -5, 1_000, 3_600_001}) {
      assertRejectedUnchanged(() -> client.grant(ttl), Status.Code.INVALID_ARGUMENT);
    }
  }

  @Test
  void emptyOrOverlongNamesAndOversizedValuesAreInvalid() {
    long lease = client.leases().get(0).getId();
    assertRejectedUnchanged(() -> client.campaign("", lease, ByteString.EMPTY), Status.Code.INVALID_ARGUMENT);
    assertRejectedUnchanged(() -> client.campaign("é".repeat(513), lease, ByteString.EMPTY),
        Status.Code.INVALID_ARGUMENT);
    assertRejectedUnchanged(() -> client.campaign("big", lease, ByteString.copyFrom(new byte[64 * 1024 + 1])),
        Status.Code.INVALID_ARGUMENT);
    assertRejectedUnchanged(() -> client.leader(""), Status.Code.INVALID_ARGUMENT);
  }

  @Test
  void unknownLeasesAreNotFound() {
    assertRejectedUnchanged(() -> client.keepAlive(999_999, 5_000), Status.Code.NOT_FOUND);
    assertRejectedUnchanged(() -> client.revoke(999_999), Status.Code.NOT_FOUND);
    assertRejectedUnchanged(() -> client.timeToLive(999_999), Status.Code.NOT_FOUND);
    assertRejectedUnchanged(() -> client.campaign("other", 999_999, ByteString.EMPTY), Status.Code.NOT_FOUND);
    assertRejectedUnchanged(() -> client.campaign("other", -1, ByteString.EMPTY), Status.Code.INVALID_ARGUMENT);
  }

  @Test
  void holderCommandsWithAWrongTokenFailTheirPrecondition() {
    LeaderKey stale = holder.toBuilder().setToken(holder.getToken() + 1000).build();
    assertRejectedUnchanged(() -> client.resign(stale), Status.Code.FAILED_PRECONDITION);
    assertRejectedUnchanged(() -> client.proclaim(stale, ByteString.copyFromUtf8("x")),
        Status.Code.FAILED_PRECONDITION);
    assertRejectedUnchanged(() -> client.freshToken(stale), Status.Code.FAILED_PRECONDITION);
    assertRejectedUnchanged(() -> client.resign(stale.toBuilder().setToken(0).build()),
        Status.Code.INVALID_ARGUMENT);
  }

  private static void assertRejectedUnchanged(ThrowingCallable call, Status.Code code) {
    List<LeaseInfo> leases = client.leases();
    Optional<LeaderKey> leader = client.leader("jobs");
    assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
    assertThat(client.leases()).isEqualTo(leases);
    assertThat(client.leader("jobs")).isEqualTo(leader).contains(holder);
  }
}
