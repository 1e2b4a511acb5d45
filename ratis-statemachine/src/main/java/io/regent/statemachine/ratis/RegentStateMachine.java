package io.regent.statemachine.ratis;

import io.regent.statemachine.replica.LeaderReadiness;
import io.regent.statemachine.replica.LeaseTimekeeper;
import io.regent.statemachine.apply.Applier;
import io.regent.statemachine.apply.ApplyOutcome;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.apply.UnknownEntryVersionException;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.replica.ApplyEffects;
import io.regent.statemachine.replica.ApplyStep;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.DataDirFull;
import io.regent.statemachine.store.RegentStore;
import io.regent.statemachine.store.StateTxn;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis adapter around Regent's LMDB state: applies entries with {@link ApplyStep}, snapshots by copying
 * LMDB, and tells the {@link LeaseTimekeeper} and {@link EventHub} what each apply did.
 *
 * <p>Storage: the live environment lives in {@code lmdbDir}, outside Ratis's snapshot directory, because a
 * snapshot install replaces that whole directory. The applied index is stored in the same LMDB transaction
 * as the state it produced; Ratis replays the log from its last snapshot on restart, and every entry at or
 * below the stored index is skipped, so nothing is applied twice (docs/architecture.md §2.3, docs/ratis.md §8).
 *
 * <p>Threading: apply runs on Ratis's single updater thread; reads ({@link #read}) run on any thread and
 * are excluded only while a snapshot install swaps the environment.
 */
public final class RegentStateMachine extends BaseStateMachine implements ReplicaView {
  private static final Logger LOG = LoggerFactory.getLogger(RegentStateMachine.class);

  private volatile int maxEntryVersion = EntryCodec.MAX_VERSION;
  /** What this replica's cell's lease ids start from: 0 for cell 0 ({@link #setLeaseIdBase}). */
  private volatile long leaseIdBase;
  private final Path lmdbDir;
  /** Answers Ratis read-only requests; until one is set, every such request is refused. */
  private volatile Function<Message, CompletableFuture<Message>> queries =
      m -> CompletableFuture.failedFuture(new IllegalStateException("this node answers no read-only requests"));
  /** Answers Ratis stale reads; until one is set, every such request is refused. */
  private volatile Function<Message, CompletableFuture<Message>> staleQueries =
      m -> CompletableFuture.failedFuture(new IllegalStateException("this node answers no stale reads"));
  private final LeaderReadiness readiness;
  private final EventHub hub;
  private final ApplyEffects effects;
  private final ApplyObserver observer;
  private final boolean unsafeSkipRelease;
  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final ReadWriteLock swap = new ReentrantReadWriteLock();
  private volatile RegentStore store;
  /** Ratis's storage directory (its log), known once initialized; for the free space of a failed log write. */
  private volatile Path raftDir;
  /** Why this replica's storage failed for good (the first failure), or null while it has not. */
  private volatile String storageFault;
  /** Whether {@link #storageFault} came from an entry its apply refused, not from the storage. */
  private volatile boolean faultOfEntry;
  /** Checks the stored state before Ratis starts this node as a peer; none until one is set. */
  private volatile Consumer<ReplicaView> startupCheck = replica -> { };
  /** Term of the last configuration entry applied; read and written on the apply thread only. */
  private long lastConfigurationTerm = -1;

  /**
   * @param lmdbDir directory of the live LMDB environment (created when absent)
   * @param timekeeper leader-side lease time; {@link LeaseTimekeeper#NONE} for replicas that never measure
   * @param hub receives the events of every apply
   */
  public RegentStateMachine(Path lmdbDir, LeaseTimekeeper timekeeper, EventHub hub) {
    this(lmdbDir, timekeeper, hub, ApplyObserver.NONE, false);
  }

  /**
   * A state machine whose applies {@code observer} watches (metrics); otherwise as above.
   *
   * @param unsafeSkipRelease TESTS ONLY: apply with the release rule of ownership groups skipped ({@link
   *     Applier#apply(StateTxn, LogEntry, long, long, boolean)}); every node of the cluster must get the same value
   */
  public RegentStateMachine(Path lmdbDir, LeaseTimekeeper timekeeper, EventHub hub, ApplyObserver observer,
                            boolean unsafeSkipRelease) {
    this.lmdbDir = lmdbDir;
    this.readiness = new LeaderReadiness(timekeeper, this);
    this.hub = hub;
    this.effects = new ApplyEffects(timekeeper, hub);
    this.observer = observer;
    this.unsafeSkipRelease = unsafeSkipRelease;
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
    super.initialize(server, groupId, raftStorage);
    raftDir = raftStorage.getStorageDir().getRoot().toPath();
    // before Ratis picks the latest snapshot: no leftover of a kill -9 may pass for it, no damaged one is used
    SnapshotDir.prepare(raftStorage.getStorageDir().getStateMachineDir().toPath());
    storage.init(raftStorage);
    getLifeCycle().startAndTransition(this::openStore);
    startupCheck.accept(this);
  }

  /**
   * Sets what checks the stored state once it is open, before Ratis starts this node as a follower (Ratis
   * initializes the state machine first): an unchecked exception it throws refuses the start, wrapped by Ratis.
   * The leadership lease refuses a node whose timing is below what it published (docs/architecture.md §8.1).
   */
  public void setStartupCheck(Consumer<ReplicaView> check) {
    this.startupCheck = check;
  }

  private void openStore() {
    SingleFileSnapshotInfo snapshot = storage.loadLatestSnapshot();
    store = RegentStore.recover(lmdbDir, snapshot == null ? null : snapshot.getFile().getPath());
    if (snapshot != null) {
      setLastAppliedTermIndex(snapshot.getTermIndex());
    }
    hub.reset(store.read(StateTxn::appliedIndex));
  }

  @Override
  public void pause() {
    swap.writeLock().lock();
    try {
      getLifeCycle().transition(LifeCycle.State.PAUSING);
      store.close();
      getLifeCycle().transition(LifeCycle.State.PAUSED);
    } finally {
      swap.writeLock().unlock();
    }
  }

  /** Called after a snapshot was installed from the leader: the live state becomes that snapshot. */
  @Override
  public void reinitialize() throws IOException {
    swap.writeLock().lock();
    try {
      getLifeCycle().transition(LifeCycle.State.STARTING);
      SingleFileSnapshotInfo snapshot = storage.loadLatestSnapshot();
      if (snapshot == null) {
        store = RegentStore.openUnsynced(lmdbDir);
      } else {
        LOG.info("installing snapshot {} into {}", snapshot.getTermIndex(), lmdbDir);
        store = RegentStore.restore(lmdbDir, snapshot.getFile().getPath());
        setLastAppliedTermIndex(snapshot.getTermIndex());
      }
      store.read(txn -> {
        hub.installed(txn); // Observe streams and campaign waiters re-judge from the installed state
        return null;
      });
      getLifeCycle().transition(LifeCycle.State.RUNNING);
    } finally {
      swap.writeLock().unlock();
    }
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return storage;
  }

  /**
   * TESTS ONLY (the rolling-upgrade test): apply entries up to {@code version} and stop at a higher one, as a build
   * of an older release would refuse it (docs/operations.md "Upgrades"); {@link EntryCodec#MAX_VERSION} unless set.
   * Call before start; a test that poisons a running replica (the cells' containment test) sets 0, which refuses
   * every entry.
   */
  public void setMaxEntryVersion(int version) {
    this.maxEntryVersion = version;
  }

  /**
   * Has the leases this replica grants numbered from {@code base} up: the replica of cell {@code c} of a cluster
   * with cells gets {@code c << 48}, so that a lease id names its cell (docs/architecture.md §14, "Cells"); 0, the
   * default, numbers them as a cluster without cells. Every replica of a cell must get the same value. Call before
   * start.
   */
  public void setLeaseIdBase(long base) {
    this.leaseIdBase = base;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    long index = entry.getIndex();
    long term = entry.getTerm();
    LogEntry command = EntryCodec.decode(entry.getStateMachineLogEntry().getLogData().toByteArray());
    if (command.getVersion() > maxEntryVersion) {
      throw failed(lmdbDir, new UnknownEntryVersionException(command.getVersion(), index), "applying entry " + index,
          false);
    }
    Result result;
    swap.readLock().lock();
    try {
      long start = System.nanoTime(); // for the observer's latency only; apply itself reads no clock
      ApplyOutcome out;
      try {
        out = ApplyStep.commit(store, command, index, term, unsafeSkipRelease, leaseIdBase); // null: a replay
      } catch (RuntimeException e) {
        // Ratis closes the division on any exception of apply (StateMachineUpdater): say why first
        throw failed(lmdbDir, e, "applying entry " + index + " to LMDB", isStorage(e));
      }
      updateLastAppliedTermIndex(term, index);
      result = effects.apply(out, index, term);
      observer.applied(command, out, System.nanoTime() - start);
    } finally {
      swap.readLock().unlock();
    }
    return CompletableFuture.completedFuture(Message.valueOf(UnsafeByteOperations.unsafeWrap(result.toByteArray())));
  }

  /**
   * Ratis's log worker could not write: it fails every later write too (SegmentedRaftLogWorker keeps the first
   * failure), so this replica is done until its process restarts; {@link #storageFault()} says so.
   */
  @Override
  public void notifyLogFailed(Throwable cause, LogEntryProto failedEntry) {
    Path dir = raftDir;
    failed(dir == null ? lmdbDir : dir, cause, failedEntry == null ? "writing the Raft log"
        : "writing entry " + failedEntry.getIndex() + " to the Raft log", true);
  }

  /** Whether {@code e}, thrown by an apply's commit, is a failure of the storage (LMDB, I/O) rather than of the entry. */
  private static boolean isStorage(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof org.lmdbjava.LmdbException || c instanceof java.io.IOException
          || c instanceof java.io.UncheckedIOException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether this replica stopped because applying an entry threw for a reason of the entry or of the rules (an
   * entry version this build does not apply, a fault in apply), not of the storage: a full data directory or a
   * failed write stops every cell of a node, an entry only its own (docs/architecture.md §14). False while it runs.
   */
  public boolean stoppedByEntry() {
    return storageFault != null && faultOfEntry;
  }

  /**
   * Why this replica's storage failed for good — a full data directory ({@link DataDirFull}'s one line) or
   * another write failure — or empty while it has not. Once set it stays: the node must restart
   * (docs/architecture.md §11).
   */
  public Optional<String> storageFault() {
    return Optional.ofNullable(storageFault);
  }

  /**
   * Records and logs (once, as one line) a failed apply or write under {@code dir}; returns what to throw.
   *
   * @param storage whether the storage failed (else the entry or the rules did), unless a full directory says so
   */
  private RuntimeException failed(Path dir, Throwable e, String what, boolean storage) {
    Optional<String> full = DataDirFull.diagnose(dir, e, what);
    String fault = full.orElse(what + " failed: " + e);
    synchronized (this) {
      if (storageFault == null) {
        faultOfEntry = !storage && full.isEmpty();
        storageFault = fault;
        LOG.error(fault);
      }
    }
    return full.<RuntimeException>map(f -> new IllegalStateException(f, e))
        .orElse(e instanceof RuntimeException r ? r : new IllegalStateException(fault, e));
  }

  /**
   * Sets what answers Ratis read-only requests on this node: a follower asks its leader to confirm a keepalive
   * or read under the leadership lease (docs/architecture.md §8.1). Ratis delivers them on the ready leader.
   */
  public void setQueryHandler(Function<Message, CompletableFuture<Message>> handler) {
    this.queries = handler;
  }

  @Override
  public CompletableFuture<Message> query(Message request) {
    return queries.apply(request);
  }

  /**
   * Sets what answers Ratis stale reads on this node, whatever its role: the nodes probe each other's clocks
   * through them (docs/architecture.md §8.1, "clock rates"). They read no replicated state, so the minimum index
   * is not waited for.
   */
  public void setStaleQueryHandler(Function<Message, CompletableFuture<Message>> handler) {
    this.staleQueries = handler;
  }

  @Override
  public CompletableFuture<Message> queryStale(Message request, long minIndex) {
    return staleQueries.apply(request);
  }

  @Override
  public long takeSnapshot() throws IOException {
    swap.readLock().lock();
    try {
      TermIndex last = getLastAppliedTermIndex();
      if (last == null || last.getIndex() <= 0) {
        return -1;
      }
      File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
      if (file.exists()) {
        return last.getIndex();
      }
      long bytes = store.copyTo(file.toPath());
      SnapshotFailpoint.reachedBeforeChecksum(file.toPath());
      MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
      storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), last));
      LOG.info("snapshot {} written: {} bytes", last, bytes);
      return last.getIndex();
    } finally {
      swap.readLock().unlock();
    }
  }

  /**
   * Remembers the term of the configuration entry just applied: a new leader's startup entry is one, and
   * Ratis calls {@link #notifyLeaderReady} right after it on this (the apply) thread.
   */
  @Override
  public void notifyConfigurationChanged(long term, long index, RaftConfigurationProto newRaftConfiguration) {
    lastConfigurationTerm = term;
  }

  @Override
  public void notifyLeaderReady() {
    readiness.ready(lastConfigurationTerm);
  }

  @Override
  public void notifyNotLeader(Collection<TransactionContext> pendingEntries) {
    long term;
    try {
      term = getServer().join().getDivision(getGroupId()).getInfo().getCurrentTerm();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("no Raft division for " + getGroupId(), e);
    }
    readiness.notLeader(term);
  }

  /**
   * Runs {@code body} against the local replica's state in a read transaction. The state may lag the
   * leader; callers that need linearizability confirm leadership first and wait for the applied index.
   */
  @Override
  public <T> T read(Function<StateTxn, T> body) {
    swap.readLock().lock();
    try {
      return store.read(body);
    } finally {
      swap.readLock().unlock();
    }
  }

  /**
   * Ratis's last applied index ({@link #getLastAppliedTermIndex()}): raised after each apply's LMDB commit and,
   * by Ratis's {@code notifyTermIndexUpdated}, for configuration entries too; 0 before anything was applied.
   */
  @Override
  public long appliedIndex() {
    TermIndex last = getLastAppliedTermIndex();
    return last == null ? 0 : last.getIndex();
  }

  /** The events of this replica's applies. */
  @Override
  public EventHub hub() {
    return hub;
  }

  @Override
  public void close() throws IOException {
    swap.writeLock().lock();
    try {
      if (store != null) {
        store.close();
      }
    } finally {
      swap.writeLock().unlock();
    }
    super.close();
  }
}
