package io.regent.server.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.StatusRuntimeException;
import io.regent.server.ratis.StoreReplica;
import io.regent.server.replication.Cleanups;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.kv.KvRules;
import io.regent.statemachine.proto.KvAnswer;
import io.regent.statemachine.proto.KvDeleteRange;
import io.regent.statemachine.proto.KvPut;
import io.regent.statemachine.proto.KvRecord;
import io.regent.statemachine.proto.KvTxn;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.store.RegentStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Campaign's or Lock's attempt at a queue of keys (docs/migrating.md "etcd's Election and Lock") on a bare store
 * whose entries the test applies itself, with a proposer whose answers the test gives: the orderings a cluster
 * leaves to chance (a cancel before the join's answer, a deletion while waiting) are set here.
 */
class QueueAttemptTest {
  private static final ByteString NAME = ByteString.copyFromUtf8("q");
  private static final ByteString PREFIX = ByteString.copyFromUtf8("q/");

  @TempDir
  Path dir;
  RegentStore store;
  final EventHub hub = new EventHub(16);
  final ExecutorService blocking = Executors.newSingleThreadExecutor();
  final LinkedBlockingQueue<Proposed> proposed = new LinkedBlockingQueue<>();
  EtcdKv kv;
  long applied;

  record Proposed(LogEntry entry, CompletableFuture<Result> answer) {
  }

  @BeforeEach
  void start() {
    store = RegentStore.open(dir);
    kv = new EtcdKv(entry -> {
      CompletableFuture<Result> answer = new CompletableFuture<>();
      proposed.add(new Proposed(entry.build(), answer));
      return answer;
    }, () -> 5, null, StoreReplica.of(store, hub), blocking, null);
  }

  @AfterEach
  void stop() {
    blocking.shutdownNow();
    store.close();
  }

  private Proposed next() throws InterruptedException {
    Proposed p = proposed.poll(30, TimeUnit.SECONDS);
    assertThat(p).as("an entry proposed within 30 s").isNotNull();
    return p;
  }

  /** Applies a put of {@code key} (lease 0) as the next entry and publishes its events, as a replica does. */
  private long put(String key) {
    return apply(rules -> rules.put(KvPut.newBuilder().setKey(ByteString.copyFromUtf8(key)).build()));
  }

  private long delete(String key) {
    return apply(rules -> rules.deleteRange(KvDeleteRange.newBuilder().setKey(ByteString.copyFromUtf8(key))
        .build()));
  }

  private long apply(java.util.function.Consumer<KvRules> op) {
    long index = ++applied;
    List<ChangeEvent> events = new ArrayList<>();
    store.write(txn -> {
      op.accept(new KvRules(txn, index, events));
      txn.setAppliedIndex(index);
      return null;
    });
    hub.publish(index, events);
    return index;
  }

  /** The join's answer: whether it put the key, the key found in place (or null), the first key (or null). */
  private static Result joined(long index, boolean put, KvRecord found, KvRecord first) {
    KvAnswer.Builder firstAnswer = KvAnswer.newBuilder();
    if (first != null) {
      firstAnswer.addKvs(first);
    }
    KvAnswer own = put ? KvAnswer.getDefaultInstance() : KvAnswer.newBuilder().addKvs(found).build();
    return Result.newBuilder().setIndex(index).setKv(KvAnswer.newBuilder().setSucceeded(put).addResponses(own)
        .addResponses(firstAnswer)).build();
  }

  /** An attempt whose key q/1f joined the queue behind q/0a: it waits its turn. */
  private record Waiting(QueueAttempt attempt, long own) {
  }

  /** Puts q/0a and q/1f, starts an attempt at q/1f (failing with {@code gone}) and answers its join as put. */
  private Waiting waitingBehindAnOlderKey(String gone) throws InterruptedException {
    long older = put("q/0a");
    long own = put("q/1f");
    QueueAttempt a = QueueAttempt.start(kv, NAME, ByteString.EMPTY, 0x1f, false, gone);
    next().answer().complete(joined(own, true, null, record("q/0a", older)));
    return new Waiting(a, own);
  }

  private static KvRecord record(String key, long rev) {
    return KvRecord.newBuilder().setKey(ByteString.copyFromUtf8(key)).setCreateRevision(rev).setModRevision(rev)
        .build();
  }

  @Test
  void anAttemptCancelledBeforeItsJoinIsAnsweredDeletesTheKeyItPutAndOnlyThatInstance() throws Exception {
    QueueAttempt a = QueueAttempt.start(kv, NAME, ByteString.EMPTY, 0x1f, false, "gone");
    Proposed join = next();
    assertThat(join.entry().getKvTxn().getSuccess(0).getPut().getKey().toStringUtf8()).isEqualTo("q/1f");
    a.cancel();
    assertThat(proposed).as("nothing to delete before the key exists").isEmpty();
    join.answer().complete(joined(7, true, null, record("q/1f", 7)));

    KvTxn delete = next().entry().getKvTxn();
    assertThat(delete.getCompares(0).getKey().toStringUtf8()).isEqualTo("q/1f");
    assertThat(delete.getCompares(0).getNumber()).as("guarded by its own create revision").isEqualTo(7);
    assertThat(delete.getSuccess(0).getDeleteRange().getKey().toStringUtf8()).isEqualTo("q/1f");
    assertThatThrownBy(() -> a.won().get()).hasCauseInstanceOf(StatusRuntimeException.class)
        .cause().extracting(t -> Status.fromThrowable(t).getCode()).isEqualTo(Status.Code.CANCELLED);
  }

  @Test
  void theDeletionOfACancelledAttemptsKeyIsProposedAgainUntilItCommits() throws Exception {
    Waiting w = waitingBehindAnOlderKey("gone");
    long own = w.own();
    w.attempt().cancel(); // while it waits its turn
    // a node that resumed after a pause proposes through the leader it last knew: before the fix the deletion was
    // dropped here, and the gone caller's key stayed in line until its lease ended
    next().answer().completeExceptionally(new Proposer.UnavailableException("no quorum", null));
    Proposed again = next();
    assertThat(again.entry().getKvTxn().getCompares(0).getNumber()).as("the same guarded delete").isEqualTo(own);
    again.answer().complete(Result.newBuilder().setIndex(9).setKv(KvAnswer.newBuilder().setSucceeded(true)).build());
    assertThat(proposed.poll(Cleanups.FIRST_PAUSE_MS * 3, TimeUnit.MILLISECONDS)).as("no third deletion").isNull();
  }

  @Test
  void anAttemptThatFoundItsKeyInPlaceLeavesItWhenCancelled() throws Exception {
    long older = put("q/0a");
    long own = put("q/1f");
    QueueAttempt a = QueueAttempt.start(kv, NAME, ByteString.EMPTY, 0x1f, false, "gone");
    next().answer().complete(joined(own, false, record("q/1f", own), record("q/0a", older)));
    a.cancel();
    assertThat(a.won()).isCompletedExceptionally();
    assertThat(proposed).as("a key it found in place (another attempt's): not deleted").isEmpty();
  }

  @Test
  void aWaitingAttemptLeadsOnceTheOlderKeyIsDeleted() throws Exception {
    Waiting w = waitingBehindAnOlderKey("gone");
    QueueAttempt a = w.attempt();
    long own = w.own();
    put("q/2b"); // a younger key changes nothing
    put("other");
    assertThat(a.won()).isNotDone();
    long freed = delete("q/0a");
    QueueAttempt.Won won = a.won().get(30, TimeUnit.SECONDS);
    assertThat(won.rev()).isEqualTo(own);
    assertThat(won.turn()).isEqualTo(freed);
  }

  @Test
  void aWaitingAttemptWhoseKeyGoesFailsWithGone() throws Exception {
    Waiting w = waitingBehindAnOlderKey("mutex: session is expired");
    QueueAttempt a = w.attempt();
    long own = w.own();
    delete("q/1f"); // its lease ended, or a client deleted it
    assertThatThrownBy(() -> a.won().get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .hasMessageContaining("mutex: session is expired");
    assertThat(next().entry().getKvTxn().getCompares(0).getNumber()).as("the guarded delete of its own key only")
        .isEqualTo(own);
  }

  @Test
  void aCallCancelledBeforeItsAttemptIsTiedToItCancelsTheAttempt() throws Exception {
    QueueAttempt a = QueueAttempt.start(kv, NAME, ByteString.EMPTY, 0x1f, false, "gone");
    Proposed join = next();
    // the client cancelled between the attempt's start and the handler's registration: gRPC calls no handler set later
    a.cancelledWith(new CancelledCall());
    join.answer().complete(joined(7, true, null, record("q/1f", 7)));
    assertThat(a.won()).isCompletedExceptionally();
    assertThat(next().entry().getKvTxn().getSuccess(0).getDeleteRange().getKey().toStringUtf8())
        .as("the key it put is deleted").isEqualTo("q/1f");
  }

  /** A server call already cancelled: it keeps the handler it is given and never runs it. */
  private static final class CancelledCall extends ServerCallStreamObserver<Object> {
    @Override
    public boolean isCancelled() {
      return true;
    }

    @Override
    public void setOnCancelHandler(Runnable onCancelHandler) {
    }

    @Override
    public void setCompression(String compression) {
    }

    @Override
    public boolean isReady() {
      return false;
    }

    @Override
    public void setOnReadyHandler(Runnable onReadyHandler) {
    }

    @Override
    public void request(int count) {
    }

    @Override
    public void setMessageCompression(boolean enable) {
    }

    @Override
    public void disableAutoInboundFlowControl() {
    }

    @Override
    public void onNext(Object value) {
    }

    @Override
    public void onError(Throwable t) {
    }

    @Override
    public void onCompleted() {
    }
  }

  @Test
  void aPrefixEndsWhereEtcdEndsIt() {
    assertThat(EtcdKeys.rangeEnd(PREFIX).toStringUtf8()).isEqualTo("q0");
    assertThat(EtcdKeys.rangeEnd(ByteString.copyFrom(new byte[] {'a', (byte) 0xff})))
        .isEqualTo(ByteString.copyFromUtf8("b"));
    assertThat(EtcdKeys.rangeEnd(ByteString.copyFrom(new byte[] {(byte) 0xff})))
        .isEqualTo(ByteString.copyFrom(new byte[] {0}));
    assertThat(EtcdKeys.key(NAME, 31).toStringUtf8()).isEqualTo("q/1f");
  }
}
