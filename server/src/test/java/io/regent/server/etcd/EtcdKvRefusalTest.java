package io.regent.server.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.Compare;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RequestOp;
import io.etcd.jetcd.api.TxnRequest;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.server.replication.EntryFormat;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.store.KvTable;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The etcd port's KV refuses before proposing (docs/migrating.md "etcd's KV"): bad input with etcd's own texts,
 * what Regent does not serve with UNIMPLEMENTED naming it, and every write while a voter applies no entry version 4
 * with FAILED_PRECONDITION. A refused call proposes nothing, so it changes nothing.
 */
class EtcdKvRefusalTest {
  private final List<LogEntry.Builder> proposed = new CopyOnWriteArrayList<>();
  private volatile int writable = EntryCodec.MAX_VERSION;
  private EtcdGateway gateway;
  private ManagedChannel channel;
  private final TickOnDemand timers = new TickOnDemand();

  @BeforeEach
  void start() throws Exception {
    EtcdKv node = new EtcdKv(entry -> {
      proposed.add(entry);
      return CompletableFuture.completedFuture(Result.newBuilder().setIndex(42).build());
    }, () -> writable, null, null, null, timers);
    gateway = TestGateways.start(() -> null, node);
    channel = Grpc.newChannelBuilder("127.0.0.1:" + gateway.port(), InsecureChannelCredentials.create()).build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    gateway.close();
    timers.shutdownNow();
  }

  /** A stub whose deadline starts now: one made before a test could run out before a loaded machine's first call. */
  private KVGrpc.KVBlockingStub kv() {
    return KVGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  private static ByteString b(String s) {
    return ByteString.copyFromUtf8(s);
  }

  private static Status refusal(Runnable call) {
    try {
      call.run();
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
    throw new AssertionError("the call succeeded");
  }

  @Test
  void badInputGetsEtcdsTextsAndProposesNothing() {
    Status empty = refusal(() -> kv().put(PutRequest.newBuilder().setValue(b("v")).build()));
    assertThat(empty.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(empty.getDescription()).isEqualTo("etcdserver: key is not provided");
    assertThat(refusal(() -> kv().range(RangeRequest.getDefaultInstance())).getDescription())
        .isEqualTo("etcdserver: key is not provided");
    assertThat(refusal(() -> kv().put(PutRequest.newBuilder().setKey(b("k")).setValue(b("v")).setIgnoreValue(true)
        .build())).getDescription()).isEqualTo("etcdserver: value is provided");
    assertThat(refusal(() -> kv().put(PutRequest.newBuilder().setKey(b("x".repeat(600))).build())).getCode())
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
    RequestOp put = RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(b("k"))).build();
    assertThat(refusal(() -> kv().txn(TxnRequest.newBuilder().addSuccess(put).addSuccess(put).build()))
        .getDescription()).isEqualTo("etcdserver: duplicate key given in txn request");
    TxnRequest.Builder big = TxnRequest.newBuilder();
    for (int i = 0; i <= KvRequests.MAX_TXN_OPS; i++) {
      big.addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(b("k" + i))));
    }
    assertThat(refusal(() -> kv().txn(big.build())).getDescription())
        .isEqualTo("etcdserver: too many operations in txn request");
    assertThat(refusal(() -> kv().txn(TxnRequest.newBuilder().addCompare(Compare.newBuilder().setKey(b("k"))
        .setTargetValue(9)).build())).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(proposed).isEmpty();
  }

  /**
   * A key above LMDB's limit less a lease id, a value above the API's 64 KiB (docs/api.md), alone or in a Txn, and a
   * Txn above etcd's default 1.5 MiB get etcd's "request is too large"; more compares than etcd's --max-txn-ops, its
   * "too many operations". Below the limits they pass.
   */
  @Test
  void sizesAboveTheLimitsGetEtcdsTextsAndProposeNothing() {
    ByteString longKey = ByteString.copyFrom(new byte[KvTable.MAX_KEY_BYTES + 1]);
    ByteString bigValue = ByteString.copyFrom(new byte[Limits.MAX_VALUE_BYTES + 1]);
    assertThat(refusal(() -> kv().put(PutRequest.newBuilder().setKey(longKey).build())))
        .satisfies(s -> assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT))
        .satisfies(s -> assertThat(s.getDescription()).isEqualTo("etcdserver: request is too large"));
    assertThat(refusal(() -> kv().range(RangeRequest.newBuilder().setKey(longKey).build())).getDescription())
        .isEqualTo("etcdserver: request is too large");
    assertThat(refusal(() -> kv().put(PutRequest.newBuilder().setKey(b("k")).setValue(bigValue).build()))
        .getDescription()).isEqualTo("etcdserver: request is too large");
    RequestOp bigPut = RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(b("k"))
        .setValue(bigValue)).build();
    assertThat(refusal(() -> kv().txn(TxnRequest.newBuilder().addFailure(bigPut).build())).getDescription())
        .isEqualTo("etcdserver: request is too large");
    TxnRequest.Builder compares = TxnRequest.newBuilder();
    for (int i = 0; i <= KvRequests.MAX_TXN_OPS; i++) {
      compares.addCompare(Compare.newBuilder().setKey(b("k" + i)).setTarget(Compare.CompareTarget.VERSION));
    }
    assertThat(refusal(() -> kv().txn(compares.build())).getDescription())
        .isEqualTo("etcdserver: too many operations in txn request");
    TxnRequest.Builder heavy = TxnRequest.newBuilder();
    for (int i = 0; heavy.build().getSerializedSize() <= KvRequests.MAX_TXN_BYTES; i++) {
      heavy.addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(b("h" + i))
          .setValue(ByteString.copyFrom(new byte[Limits.MAX_VALUE_BYTES]))));
    }
    assertThat(refusal(() -> kv().txn(heavy.build())).getDescription()).as("a Txn above etcd's 1.5 MiB")
        .isEqualTo("etcdserver: request is too large");
    assertThat(proposed).isEmpty();

    kv().put(PutRequest.newBuilder().setKey(ByteString.copyFrom(new byte[KvTable.MAX_KEY_BYTES]))
        .setValue(ByteString.copyFrom(new byte[Limits.MAX_VALUE_BYTES])).build());
    kv().txn(compares.removeCompare(0).build());
    kv().txn(heavy.removeSuccess(heavy.getSuccessCount() - 1).build());
    assertThat(proposed).as("at the limits all pass").hasSize(3);
  }

  @Test
  void whatIsNotServedIsUnimplementedNamingIt() {
    RequestOp nested = RequestOp.newBuilder().setRequestTxn(TxnRequest.getDefaultInstance()).build();
    Status s = refusal(() -> kv().txn(TxnRequest.newBuilder().addSuccess(nested).build()));
    assertThat(s.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(s.getDescription()).contains("a Txn inside a Txn");
    assertThat(proposed).isEmpty();
  }

  @Test
  void writesWaitForEveryVoterOnEntryVersion5() {
    writable = EntryCodec.ATTEMPT_ID_VERSION; // a voter still on a build before the KV
    Status s = refusal(() -> kv().put(PutRequest.newBuilder().setKey(b("k")).setValue(b("v")).build()));
    assertThat(s.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(s.getDescription()).contains("version 5").contains("version 4");
    assertThat(proposed).isEmpty();

    writable = EntryCodec.KV_VERSION;
    assertThat(kv().put(PutRequest.newBuilder().setKey(b("k")).setValue(b("v")).build()).getHeader().getRevision())
        .as("the header revision is the index of the entry that applied the put").isEqualTo(42);
    assertThat(proposed).singleElement().satisfies(e -> {
      assertThat(e.hasKvPut()).isTrue();
      assertThat(e.getRequestId()).as("a request id of the node's, so that its re-sends apply once").isNotEmpty();
    });
  }
}
