package io.regent.server.single;

import io.regent.server.concurrent.Daemons;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.apply.Applier;
import io.regent.statemachine.apply.ApplyOutcome;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.replica.LeaderReadiness;
import io.regent.statemachine.replica.LeaseTimekeeper;
import io.regent.statemachine.replica.ApplyEffects;
import io.regent.statemachine.replica.ApplyStep;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.RegentStore;
import io.regent.statemachine.store.StateTxn;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single-writer baseline (docs/architecture.md §6): the same apply as the Raft state machine, in one process, with
 * no consensus. Each command takes the next index from LMDB's applied-index counter and is committed with
 * a full fsync before the reply, so tokens are strictly increasing across restarts; the node is simply
 * unavailable while it is down (CP by construction: there is one copy).
 *
 * <p>Commands are applied one at a time on a dedicated thread, in arrival order.
 */
public final class SingleWriterLog implements Proposer, ReplicaView, AutoCloseable {
  /** The single writer's only "term": nothing else can ever propose. */
  public static final long TERM = 1;
  private static final Logger LOG = LoggerFactory.getLogger(SingleWriterLog.class);

  private final RegentStore store;
  private final EventHub hub;
  private final ApplyEffects effects;
  private final boolean unsafeSkipRelease;
  private final ExecutorService writer = Daemons.executor("regent-single-writer");
  /** Set by {@link #close}: commands still queued then fail instead of writing to a store being closed. */
  private volatile boolean closed;
  /**
   * Reads hold it shared, the store's close exclusively: closing LMDB under an open read transaction frees what the
   * transaction's end then touches (the JVM died with exit 134 in a CI run whose health check read the state while
   * a test closed the node).
   */
  private final ReadWriteLock readers = new ReentrantReadWriteLock();

  /**
   * Opens (or creates) the state in {@code lmdbDir} and declares this node the ready leader of
   * {@link #TERM}: every lease gets a full TTL from now, as after any leader change.
   */
  public SingleWriterLog(Path lmdbDir, LeaseTimekeeper timekeeper, EventHub hub) {
    this(lmdbDir, timekeeper, hub, false);
  }

  /**
   * As above; {@code unsafeSkipRelease} is TESTS ONLY: apply with the release rule of ownership groups skipped
   * ({@link Applier#apply(StateTxn, LogEntry, long, long, boolean)}).
   */
  public SingleWriterLog(Path lmdbDir, LeaseTimekeeper timekeeper, EventHub hub, boolean unsafeSkipRelease) {
    this.unsafeSkipRelease = unsafeSkipRelease;
    this.store = RegentStore.openDurable(lmdbDir);
    this.hub = hub;
    this.effects = new ApplyEffects(timekeeper, hub);
    hub.reset(store.read(StateTxn::appliedIndex));
    new LeaderReadiness(timekeeper, this).ready(TERM);
  }

  @Override
  public CompletableFuture<Result> propose(LogEntry.Builder entry) {
    // one writer, one build: the newest format, request ids included (docs/api.md "Request ids")
    LogEntry e = EntryCodec.decode(EntryCodec.encode(entry, EntryCodec.MAX_VERSION));
    return CompletableFuture.supplyAsync(() -> {
      if (closed) {
        throw new Proposer.UnavailableException("the single writer is shutting down", null);
      }
      // this thread is the store's only writer: nothing takes the next index between this read and the write
      long index = store.read(StateTxn::appliedIndex) + 1;
      ApplyOutcome out = ApplyStep.commit(store, e, index, TERM, unsafeSkipRelease, 0);
      return effects.apply(out, index, TERM);
    }, writer);
  }

  /**
   * Runs {@code body} in a read transaction of the state.
   *
   * @throws Proposer.UnavailableException once {@link #close} has begun
   */
  @Override
  public <T> T read(Function<StateTxn, T> body) {
    readers.readLock().lock();
    try {
      if (closed) {
        throw new Proposer.UnavailableException("the single writer is shutting down", null);
      }
      return store.read(body);
    } finally {
      readers.readLock().unlock();
    }
  }

  @Override
  public EventHub hub() {
    return hub;
  }

  /** Index of the last applied command (this log has no entries but commands). */
  @Override
  public long appliedIndex() {
    return read(StateTxn::appliedIndex);
  }

  /**
   * Fails the commands still queued and refuses new reads, waits up to 10 s for the one being committed, then for the
   * reads under way, and closes the store. Closing LMDB under a running commit killed the JVM (SIGSEGV in
   * {@code mdb_txn_commit}); a commit that does not end in time leaves the store open rather than risk that.
   */
  @Override
  public void close() {
    closed = true;
    writer.shutdown();
    try {
      if (!writer.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.warn("a single-writer commit did not end within 10 s of the close: the store stays open");
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    readers.writeLock().lock();
    try {
      store.close();
    } finally {
      readers.writeLock().unlock();
    }
  }
}
