package io.regent.server.etcd;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.regent.server.replication.Cleanups;
import io.regent.statemachine.proto.KvAnswer;
import io.regent.statemachine.proto.KvRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One Campaign's or Lock's attempt at the queue of a name ({@link KeyQueue}; docs/migrating.md "etcd's Election and
 * Lock"), as etcd's {@code concurrency} package makes it: it puts its key {@code NAME/LEASE} with its lease unless
 * the key exists (then it takes the key's place, and a Campaign proclaims its value if the key holds another), and
 * leads at once when its key is the first, or else waits for its turn ({@link QueueWait}).
 *
 * <p>An attempt that is cancelled (its call cancelled by the client or past its deadline) or fails before its turn
 * deletes its key, guarded by the key's create revision, so that it deletes only the instance it put itself: never
 * a key it found in place (another attempt's, of the same lease), never a later instance. One that won keeps its key:
 * the lease holds it from then on, as in etcd. The attempt's monitor orders its cancellation against its answer.
 */
final class QueueAttempt {
  /**
   * What an attempt won.
   *
   * @param rev its key's create revision: etcd's {@code LeaderKey.rev}, the holder's fencing token
   * @param joined the log index of the entry that queued the key (or found it queued)
   * @param turn the log index at which no older key was left ({@code joined} when there was none)
   */
  record Won(long rev, long joined, long turn) {
  }

  private final EtcdKv kv;
  private final ByteString prefix;
  private final ByteString key;
  private final ByteString value;
  private final long lease;
  private final boolean proclaims;
  private final String gone;
  private final CompletableFuture<Won> won = new CompletableFuture<>();
  private long created; // the create revision of the key this attempt put; 0 until then, or when it found one
  private boolean cancelled;
  private CompletableFuture<Long> waiting;

  private QueueAttempt(EtcdKv kv, ByteString name, ByteString value, long lease, boolean proclaims, String gone) {
    this.kv = kv;
    this.prefix = EtcdKeys.prefix(name);
    this.key = EtcdKeys.key(name, lease);
    this.value = value;
    this.lease = lease;
    this.proclaims = proclaims;
    this.gone = gone;
  }

  /**
   * Starts an attempt of {@code lease} at the queue of {@code name}.
   *
   * @param proclaims whether a key found in place with another value gets {@code value} (Campaign), or stays as
   *     it is (Lock)
   * @param gone the description of the failure (UNKNOWN) when the attempt's key is gone before its turn
   * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT for an empty name, lease 0, or an oversized name or value
   *     (etcd's text for the last)
   */
  static QueueAttempt start(EtcdKv kv, ByteString name, ByteString value, long lease, boolean proclaims,
                            String gone) {
    if (name.isEmpty()) {
      throw Status.INVALID_ARGUMENT.withDescription("a name is required (the keys of a campaign or a lock are "
          + "NAME/LEASE)").asRuntimeException();
    }
    if (lease == 0) {
      throw Status.INVALID_ARGUMENT.withDescription("etcdserver: a lease is required (grant one and pass its id;"
          + " Regent's etcd port grants none on a campaign's or a lock's behalf)").asRuntimeException();
    }
    QueueAttempt a = new QueueAttempt(kv, name, value, lease, proclaims, gone);
    kv.write(LogEntry.newBuilder().setKvTxn(KeyQueue.join(a.prefix, a.key, value, lease))).whenComplete((r, err) -> {
      if (err != null) {
        a.failed(err);
      } else {
        a.joined(r);
      }
    });
    return a;
  }

  /** The attempt's key. */
  ByteString key() {
    return key;
  }

  /** What the attempt won, once it leads; failed with the status of what refused or ended it. */
  CompletableFuture<Won> won() {
    return won;
  }

  /**
   * Ties the attempt to {@code call}: the call's cancellation (by its client, or its deadline) cancels the attempt,
   * also when it came before this, between the attempt's start and here, which gRPC would not report to a handler
   * set afterwards.
   *
   * @return this attempt
   */
  QueueAttempt cancelledWith(ServerCallStreamObserver<?> call) {
    call.setOnCancelHandler(this::cancel);
    if (call.isCancelled()) {
      cancel();
    }
    return this;
  }

  /** Gives the attempt up, unless it won already: stops its wait and deletes the key it put, if it put one. */
  synchronized void cancel() {
    if (won.isDone()) {
      return;
    }
    cancelled = true;
    won.completeExceptionally(Status.CANCELLED.withDescription("cancelled by the client").asRuntimeException());
    if (waiting != null) {
      waiting.cancel(false);
    }
    deleteOwnKey();
  }

  private void joined(Result r) {
    KvAnswer a = r.getKv();
    long rev;
    synchronized (this) {
      if (a.getSucceeded()) {
        rev = r.getIndex();
        created = rev;
      } else {
        rev = a.getResponses(0).getKvs(0).getCreateRevision();
      }
      if (cancelled) {
        deleteOwnKey();
        return;
      }
    }
    KvRecord found = a.getSucceeded() ? null : a.getResponses(0).getKvs(0);
    if (proclaims && found != null && !found.getValue().equals(value)) {
      kv.write(LogEntry.newBuilder().setKvTxn(KeyQueue.ifCreatedAt(key, rev, KeyQueue.put(key, value, lease))))
          .whenComplete((p, err) -> {
            if (err != null) {
              failed(err);
            } else if (!p.getKv().getSucceeded()) {
              failed(Status.UNKNOWN.withDescription(gone).asRuntimeException());
            } else {
              await(rev, r.getIndex());
            }
          });
      return;
    }
    KvAnswer first = a.getResponses(1);
    if (first.getKvsCount() == 0 || first.getKvs(0).getCreateRevision() == rev) {
      win(new Won(rev, r.getIndex(), r.getIndex()));
    } else {
      await(rev, r.getIndex());
    }
  }

  private synchronized void await(long rev, long joined) {
    if (cancelled) {
      return;
    }
    waiting = QueueWait.start(kv, prefix, key, rev, gone);
    waiting.whenComplete((turn, err) -> {
      if (err != null) {
        failed(err);
      } else {
        win(new Won(rev, joined, turn));
      }
    });
  }

  private synchronized void win(Won w) {
    won.complete(w);
  }

  private synchronized void failed(Throwable err) {
    if (won.completeExceptionally(err instanceof CompletionException c && c.getCause() != null ? c.getCause()
        : err)) {
      deleteOwnKey();
    }
  }

  /**
   * Deletes the key this attempt put, if any, and only that instance of it (its create revision); again until the
   * deletion commits ({@link Cleanups}). A write refused here (a rolling upgrade begun since) leaves the key to its
   * lease, as a lost client would.
   */
  private void deleteOwnKey() {
    if (created == 0) {
      return;
    }
    long rev = created;
    created = 0;
    Cleanups.on(kv.blocking()).run("deleting key " + key.toStringUtf8() + " created at " + rev,
        () -> kv.write(LogEntry.newBuilder().setKvTxn(KeyQueue.ifCreatedAt(key, rev, KeyQueue.delete(key)))));
  }
}
