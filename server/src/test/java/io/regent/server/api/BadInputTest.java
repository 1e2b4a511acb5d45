package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.GroupGrpc;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaseInfo;
import io.regent.api.v1.LockGrpc;
import io.regent.api.v1.ObserveResponse;
import io.regent.client.GroupClient;
import io.regent.client.RegentClient;
import io.regent.server.cluster.ClusterFixture;
import io.regent.server.cluster.LocalCluster;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Bad input gets the documented gRPC status and changes nothing (docs/architecture.md §7). */
@Tag("cluster")
class BadInputTest {
  @RegisterExtension
  static final ClusterFixture CLUSTERS = ClusterFixture.perClass();
  static LocalCluster cluster;
  static RegentClient client;
  static LeaderKey holder;

  @BeforeAll
  static void start() throws Exception {
    cluster = CLUSTERS.start(1);
    cluster.awaitLeader();
    client = cluster.client();
    holder = client.elections().campaign("jobs", client.leases().grant(600_000), ByteString.copyFromUtf8("a"));
  }

  @Test
  void ttlZeroNegativeBelowTheMinimumOrAboveAnHourIsInvalid() {
    for (long ttl : new long[] {0, -5, 1_000, 3_600_001}) {
      assertRejectedUnchanged(() -> client.leases().grant(ttl), Status.Code.INVALID_ARGUMENT);
    }
  }

  @Test
  void emptyOrOverlongNamesAndOversizedValuesAreInvalid() {
    long lease = client.leases().list().get(0).getId();
    assertRejectedUnchanged(() -> client.elections().campaign("", lease, ByteString.EMPTY),
        Status.Code.INVALID_ARGUMENT);
    assertRejectedUnchanged(() -> client.elections().campaign("é".repeat(513), lease, ByteString.EMPTY),
        Status.Code.INVALID_ARGUMENT);
    assertRejectedUnchanged(() -> client.elections().campaign("big", lease,
        ByteString.copyFrom(new byte[64 * 1024 + 1])),
        Status.Code.INVALID_ARGUMENT);
    assertRejectedUnchanged(() -> client.elections().leader(""), Status.Code.INVALID_ARGUMENT);
  }

  @Test
  void unknownLeasesAreNotFound() {
    assertRejectedUnchanged(() -> client.leases().keepAlive(999_999, 5_000), Status.Code.NOT_FOUND);
    assertRejectedUnchanged(() -> client.leases().revoke(999_999), Status.Code.NOT_FOUND);
    assertRejectedUnchanged(() -> client.leases().timeToLive(999_999), Status.Code.NOT_FOUND);
    assertRejectedUnchanged(() -> client.elections().campaign("other", 999_999, ByteString.EMPTY),
        Status.Code.NOT_FOUND);
    assertRejectedUnchanged(() -> client.elections().campaign("other", -1, ByteString.EMPTY),
        Status.Code.INVALID_ARGUMENT);
  }

  @Test
  void holderCommandsWithAWrongTokenFailTheirPrecondition() {
    LeaderKey stale = holder.toBuilder().setToken(holder.getToken() + 1000).build();
    assertRejectedUnchanged(() -> client.elections().resign(stale), Status.Code.FAILED_PRECONDITION);
    assertRejectedUnchanged(() -> client.elections().proclaim(stale, ByteString.copyFromUtf8("x")),
        Status.Code.FAILED_PRECONDITION);
    assertRejectedUnchanged(() -> client.elections().freshToken(stale), Status.Code.FAILED_PRECONDITION);
    assertRejectedUnchanged(() -> client.elections().resign(stale.toBuilder().setToken(0).build()),
        Status.Code.INVALID_ARGUMENT);
  }

  @Test
  void observingAfterANegativeIndexIsInvalid() throws Exception {
    CompletableFuture<Throwable> failed = new CompletableFuture<>();
    client.elections().observe("jobs", -3, new StreamObserver<>() {
      @Override
      public void onNext(ObserveResponse value) {
        failed.completeExceptionally(new AssertionError("an event after index -3: " + value));
      }

      @Override
      public void onError(Throwable t) {
        failed.complete(t);
      }

      @Override
      public void onCompleted() {
        failed.completeExceptionally(new AssertionError("completed"));
      }
    });
    // before: accepted as 0, the stream sent the current holder
    assertThat(failed.get(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
  }

  @Test
  void aStringFieldWithInvalidUtf8IsInvalidInEveryServiceAndChangesNothing() {
    byte[] notUtf8 = {'j', (byte) 0xC3, (byte) 0x28}; // 0xC3 opens a two-byte sequence, 0x28 cannot go on it
    // before: grpc-java failed to parse these before any handler ran and answered UNKNOWN: Application error
    assertRawRejected(ElectionGrpc.getCampaignMethod(), out -> {
      out.writeByteArray(1, notUtf8); // name
      out.writeInt64(6, 600_000); // ttl_ms: a valid request would grant a lease and take the name
    });
    assertRawRejected(LockGrpc.getLockMethod(), out -> {
      out.writeByteArray(1, notUtf8); // name
      out.writeInt64(5, 600_000); // ttl_ms
    });
    assertRawRejected(GroupGrpc.getJoinMethod(), out -> {
      out.writeString(1, "g"); // group
      out.writeByteArray(2, notUtf8); // member
      out.writeInt64(4, 600_000); // ttl_ms
      out.writeInt32(5, 4); // partitions: a valid request would create the group
    });
    assertRawRejected(ClusterGrpc.getMemberAddMethod(), out -> {
      out.writeByteArray(1, notUtf8); // id
      out.writeString(2, "127.0.0.1:1");
    });
    assertThatThrownBy(() -> new GroupClient(client).status("g", false)).isInstanceOfSatisfying(
        StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
    assertThat(client.cluster().memberList().getMembersCount()).isEqualTo(1);
  }

  /** Sends {@code fields}, encoded by hand (so a string field can carry any bytes), to {@code method}. */
  private static void assertRawRejected(MethodDescriptor<?, ?> method, RawFields fields) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      CodedOutputStream out = CodedOutputStream.newInstance(bytes);
      fields.write(out);
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    MethodDescriptor<byte[], byte[]> raw = MethodDescriptor.<byte[], byte[]>newBuilder(RAW, RAW)
        .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName(method.getFullMethodName()).build();
    ManagedChannel channel = ManagedChannelBuilder.forTarget(cluster.endpoint(0)).usePlaintext().build();
    try {
      assertRejectedUnchanged(() -> ClientCalls.blockingUnaryCall(channel, raw,
          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), bytes.toByteArray()),
          Status.Code.INVALID_ARGUMENT);
      assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, raw,
          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), bytes.toByteArray()))
          .hasMessageContaining(method.getFullMethodName()).hasMessageContaining("UTF-8");
    } finally {
      channel.shutdownNow();
    }
  }

  /** Writes a request's fields. */
  @FunctionalInterface
  private interface RawFields {
    void write(CodedOutputStream out) throws IOException;
  }

  private static final MethodDescriptor.Marshaller<byte[]> RAW = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  private static void assertRejectedUnchanged(ThrowingCallable call, Status.Code code) {
    List<LeaseInfo> leases = client.leases().list();
    Optional<LeaderKey> leader = client.elections().leader("jobs");
    assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
    assertThat(client.leases().list()).isEqualTo(leases);
    assertThat(client.elections().leader("jobs")).isEqualTo(leader).contains(holder);
  }
}
