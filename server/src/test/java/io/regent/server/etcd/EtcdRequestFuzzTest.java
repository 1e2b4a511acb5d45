package io.regent.server.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.etcd.jetcd.api.DeleteRangeRequest;
import io.etcd.jetcd.api.DeleteRangeResponse;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.PutResponse;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RangeResponse;
import io.etcd.jetcd.api.TxnRequest;
import io.etcd.jetcd.api.TxnResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.regent.server.api.FirstReply;
import io.regent.server.api.StateReader;
import io.regent.server.ratis.StoreReplica;
import io.regent.statemachine.apply.Applier;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.kv.KvRules;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.KvPut;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.RegentStore;
import io.regent.statemachine.store.StateTxn;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes the etcd port's request decoding and checks (docs/migrating.md "etcd's KV", "etcd's Watch") with Jazzer:
 * the input's last byte picks Range, Put, DeleteRange, Txn or Watch, and the rest is that request as it comes off
 * the wire (a Watch: up to {@link WatchFuzzStream#MAX_REQUESTS} length-delimited requests on one stream), with any
 * field, unknown enum value or unknown field. Bytes that are no such message are gRPC's to refuse, never ours.
 *
 * <p>Properties: the service never throws; it answers or refuses with one of etcd's texts ({@link #etcdsRefusal});
 * a request refused before apply proposes nothing, and one apply refuses leaves the state as it was; apply never
 * throws. Writes are applied to an LMDB store holding four keys (one on a live lease) and undone after each input,
 * so every input meets the same state.
 */
class EtcdRequestFuzzTest {
  static final long LEASE = 7;
  static final long SEEDED = 4;
  static Path dir;
  static RegentStore store;
  static ReplicaView replica;
  static ScheduledThreadPoolExecutor timers;
  static final Executor DIRECT = Runnable::run;
  static final List<LogEntry> proposed = new ArrayList<>();
  static EtcdKvService kv;

  /** Aborts the write transaction an entry was applied in, carrying apply's result. */
  private static final class Undo extends RuntimeException {
    final Result result;

    Undo(Result result) {
      super(null, null, false, false);
      this.result = result;
    }
  }

  @BeforeAll
  static void open() throws IOException {
    dir = Files.createTempDirectory("regent-etcd-fuzz");
    store = RegentStore.open(dir.resolve("lmdb"));
    store.write(txn -> {
      txn.putLease(LeaseRecord.newBuilder().setId(LEASE).setTtlMs(10_000).build());
      for (int i = 1; i <= SEEDED; i++) {
        new KvRules(txn, i, new ArrayList<>()).put(KvPut.newBuilder().setKey(ByteString.copyFromUtf8("k" + i))
            .setValue(ByteString.copyFromUtf8("v" + i)).setLease(i == SEEDED ? LEASE : 0).build());
      }
      txn.setAppliedIndex(SEEDED);
      return null;
    });
    replica = StoreReplica.of(store, new EventHub(16));
    timers = new ScheduledThreadPoolExecutor(1);
    StateReader reader = new StateReader(null, replica, DIRECT, new StateReader.Replay() {
      @Override
      public boolean replayed() {
        return true;
      }

      @Override
      public long replayTarget() {
        return SEEDED;
      }
    });
    kv = new EtcdKvService(new Headers(() -> null), new EtcdKv(EtcdRequestFuzzTest::applyAndUndo,
        () -> EntryCodec.KV_VERSION, reader, replica, DIRECT, timers));
  }

  @AfterAll
  static void close() throws IOException {
    timers.shutdownNow();
    store.close();
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @FuzzTest(maxDuration = "20s")
  void badRequestsGetEtcdsErrorsAndChangeNothing(FuzzedDataProvider data) {
    int kind = Math.floorMod(data.consumeByte(), 5);
    byte[] wire = data.consumeRemainingAsBytes();
    proposed.clear();
    try {
      switch (kind) {
        // serializable: the fuzz node has no confirmation round (a linearizable range reads the same state after one)
        case 0 -> EtcdRequestFuzzTest.<RangeResponse>call(obs -> kv.range(RangeRequest.parseFrom(wire).toBuilder()
            .setSerializable(true).build(), obs));
        case 1 -> EtcdRequestFuzzTest.<PutResponse>call(obs -> kv.put(PutRequest.parseFrom(wire), obs));
        case 2 -> EtcdRequestFuzzTest.<DeleteRangeResponse>call(obs -> kv.deleteRange(DeleteRangeRequest
            .parseFrom(wire), obs));
        case 3 -> EtcdRequestFuzzTest.<TxnResponse>call(obs -> kv.txn(TxnRequest.parseFrom(wire), obs));
        default -> WatchFuzzStream.run(wire, replica, timers, SEEDED);
      }
    } catch (InvalidProtocolBufferException e) {
      // not such a message: gRPC's unmarshaller refuses it before the service sees it
    }
  }

  /** A unary call whose request the fuzzer wrote. */
  private interface Call<T> {
    void run(StreamObserver<T> obs) throws InvalidProtocolBufferException;
  }

  private static <T> void call(Call<T> call) throws InvalidProtocolBufferException {
    FirstReply<T> reply = new FirstReply<>();
    call.run(reply);
    CompletableFuture<T> answer = reply.future();
    assertThat(answer).as("answered at once: the store and the pools are this thread").isDone();
    if (answer.isCompletedExceptionally()) {
      Status refused = Status.fromThrowable(answer.handle((v, t) -> t).join());
      etcdsRefusal(refused);
      if (refused.getCode() == Status.Code.INVALID_ARGUMENT && proposed.isEmpty()) {
        return; // refused by the port's checks: nothing proposed, so nothing changed
      }
    }
    assertThat(proposed).as("a range proposes nothing; a write proposes one entry").hasSizeLessThanOrEqualTo(1);
  }

  /**
   * {@code s} is one of etcd's refusals as its clients match them: etcd's "etcdserver: …" texts for
   * INVALID_ARGUMENT, NOT_FOUND (lease) and OUT_OF_RANGE (revisions); UNIMPLEMENTED naming what is not served.
   */
  static void etcdsRefusal(Status s) {
    switch (s.getCode()) {
      case INVALID_ARGUMENT, NOT_FOUND, OUT_OF_RANGE -> assertThat(s.getDescription()).startsWith("etcdserver: ");
      case UNIMPLEMENTED -> assertThat(s.getDescription()).contains("is not served by Regent's etcd port");
      default -> fail("not one of etcd's refusals: " + s);
    }
  }

  /**
   * The proposer: encodes the entry as the node does, applies it after the seeded state, checks that a refusal
   * left the state as it was, and undoes it.
   */
  private static CompletableFuture<Result> applyAndUndo(LogEntry.Builder command) {
    LogEntry entry = EntryCodec.decode(EntryCodec.encode(command, EntryCodec.MAX_VERSION));
    proposed.add(entry);
    try {
      store.write(txn -> {
        List<Object> before = state(txn);
        Result r = Applier.apply(txn, entry, SEEDED + 1, 1).result();
        if (r.getCode() != Code.OK) {
          assertThat(state(txn)).as("a refusal (%s) changes nothing", r.getMessage()).isEqualTo(before);
        }
        throw new Undo(r);
      });
    } catch (Undo u) {
      return CompletableFuture.completedFuture(u.result.toBuilder().setIndex(SEEDED + 1).build());
    }
    throw new AssertionError("the write was not undone");
  }

  /** What an etcd client can see of the state: the keys, the compaction point, the history and the leases. */
  private static List<Object> state(StateTxn txn) {
    return List.of(txn.kv().range(new byte[] {0}, null), txn.kv().compacted(), txn.kvHistory().count(),
        txn.kvHistory().floor(), txn.lease(LEASE) != null);
  }
}
