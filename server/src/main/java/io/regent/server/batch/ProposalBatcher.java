package io.regent.server.batch;

import io.regent.server.replication.EntryFormat;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.Batch;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Group commit of client operations (docs/architecture.md §2.6; etcd batches proposals in its raft loop the same
 * way): an operation proposed while fewer than {@code maxInFlight} entries of this batcher are unanswered goes at
 * once, alone (no latency added at low load, no timer); operations that arrive while that many are in flight
 * wait, and the next answer sends them as one batch entry of at most {@code maxOps} operations and about
 * {@code maxBytes} bytes. A batch holds at most one operation per name: two operations on one name keep their
 * order in separate entries. An operation the apply refused with {@link Code#BATCH_CONFLICT} (it would have
 * granted a name a second time at one index) is sent again alone. Operations {@link EntryCodec#batchable} does
 * not admit bypass the batcher.
 *
 * <p>Thread-safe; answers complete on the threads of the underlying proposer.
 */
public final class ProposalBatcher implements Proposer {
  private final Proposer next;
  private final int maxOps;
  private final int maxBytes;
  private final int maxInFlight;
  private final EntryFormat format;
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private int inFlight;

  private record Pending(LogEntry op, int bytes, CompletableFuture<Result> answer) {
  }

  /**
   * @param next where entries go (the node's Ratis proposer)
   * @param maxOps operations per batch entry, at most (at least 2)
   * @param maxBytes encoded bytes of the operations of one batch, about (one larger operation still goes, alone)
   * @param maxInFlight entries of this batcher unanswered at once before operations wait to be batched (at least 1)
   * @param format the entry version every voter applies: below {@link EntryCodec#BATCH_VERSION} (a voter on a build
   *     without batches, during a rolling upgrade) every operation goes alone (docs/operations.md "Upgrades")
   * @throws IllegalArgumentException when a bound is out of range
   */
  public ProposalBatcher(Proposer next, int maxOps, int maxBytes, int maxInFlight, EntryFormat format) {
    this.format = format;
    if (maxOps < 2 || maxBytes < 1 || maxInFlight < 1) {
      throw new IllegalArgumentException("batch of " + maxOps + " operations, " + maxBytes + " bytes, "
          + maxInFlight + " in flight: need at least 2, 1 and 1");
    }
    this.next = next;
    this.maxOps = maxOps;
    this.maxBytes = maxBytes;
    this.maxInFlight = maxInFlight;
  }

  /** Proposes {@code entry}, alone or in a batch; the answer is its own result, as from {@code next}. */
  @Override
  public CompletableFuture<Result> propose(LogEntry.Builder entry) {
    if (!EntryCodec.batchable(entry)) {
      return next.propose(entry); // no copy: the node's rounds and timer entries pass straight through
    }
    LogEntry op = entry.build();
    Pending p = new Pending(op, op.getSerializedSize(), new CompletableFuture<>());
    List<Pending> send;
    synchronized (this) {
      queue.addLast(p);
      send = inFlight < maxInFlight ? cut() : null;
    }
    if (send != null) {
      dispatch(send);
    }
    return p.answer();
  }

  /** Takes the next batch off the queue (one operation per name, within the bounds) and counts it in flight. */
  private List<Pending> cut() {
    List<Pending> batch = new ArrayList<>();
    Set<String> names = new HashSet<>();
    int bytes = 0;
    int ops = format.writable() >= EntryCodec.BATCH_VERSION ? maxOps : 1;
    for (Iterator<Pending> it = queue.iterator(); it.hasNext() && batch.size() < ops; ) {
      Pending p = it.next();
      String name = name(p.op());
      if (!batch.isEmpty() && bytes + p.bytes() > maxBytes) {
        break;
      }
      if (name != null && !names.add(name)) {
        continue; // waits for a later entry, behind the operation on its name already in this one
      }
      it.remove();
      batch.add(p);
      bytes += p.bytes();
    }
    inFlight++;
    return batch;
  }

  private void dispatch(List<Pending> batch) {
    CompletableFuture<Result> sent;
    if (batch.size() == 1) {
      sent = propose(next, batch.get(0).op().toBuilder());
    } else {
      Batch.Builder b = Batch.newBuilder();
      batch.forEach(p -> b.addEntries(p.op()));
      sent = propose(next, LogEntry.newBuilder().setBatch(b));
    }
    sent.whenComplete((r, err) -> {
      List<Pending> more;
      synchronized (this) {
        inFlight--;
        more = queue.isEmpty() ? null : cut();
      }
      // the next entry first: answering runs every caller's continuation (its gRPC reply) on this thread, and
      // the queued operations would wait for all of them (docs/performance.md, "Where an entry's time goes")
      if (more != null) {
        dispatch(more);
      }
      answer(batch, r, err);
    });
  }

  private void answer(List<Pending> batch, Result r, Throwable err) {
    if (err != null) {
      batch.forEach(p -> p.answer().completeExceptionally(err));
    } else if (batch.size() == 1) {
      batch.get(0).answer().complete(r);
    } else if (r.getResultsCount() != batch.size()) {
      // refused as a whole (e.g. a replica that does not know batch entries): each operation gets that answer
      batch.forEach(p -> p.answer().complete(r));
    } else {
      for (int i = 0; i < batch.size(); i++) {
        Pending p = batch.get(i);
        Result one = r.getResults(i);
        if (one.getCode() == Code.BATCH_CONFLICT) {
          propose(next, p.op().toBuilder()).whenComplete((again, e) -> {
            if (e != null) {
              p.answer().completeExceptionally(e);
            } else {
              p.answer().complete(again);
            }
          });
        } else {
          p.answer().complete(one);
        }
      }
    }
  }

  private static CompletableFuture<Result> propose(Proposer p, LogEntry.Builder entry) {
    try {
      return p.propose(entry);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e); // an answer for every operation, never a lost future
    }
  }

  /** The name an operation acts on, or {@code null} for one without (a grant, a revoke). */
  private static String name(LogEntry op) {
    return switch (op.getCommandCase()) {
      case CAMPAIGN -> op.getCampaign().getName();
      case PROCLAIM -> op.getProclaim().getName();
      case RESIGN -> op.getResign().getName();
      case WITHDRAW -> op.getWithdraw().getName();
      default -> null;
    };
  }
}
