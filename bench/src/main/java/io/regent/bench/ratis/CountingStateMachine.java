package io.regent.bench.ratis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;

/**
 * The trivial state machine of the bare-Ratis target: counts applied entries, in memory. What Ratis costs with
 * no work in apply, the floor Regent's own layers are measured against (docs/performance.md).
 */
public final class CountingStateMachine extends BaseStateMachine {
  private final AtomicLong applied = new AtomicLong();

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    long n = applied.incrementAndGet();
    updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
    return CompletableFuture.completedFuture(count(n));
  }

  /** Answers the count (a linearizable read when the server's read option is LINEARIZABLE, as Regent's). */
  @Override
  public CompletableFuture<Message> query(Message request) {
    return CompletableFuture.completedFuture(count(applied.get()));
  }

  private static Message count(long n) {
    return Message.valueOf(Long.toString(n));
  }
}
