package io.regent.bench.jmh;

import io.regent.statemachine.apply.ApplyOutcome;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.Expire;
import io.regent.statemachine.proto.FreshToken;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Resign;
import io.regent.statemachine.proto.Revoke;
import io.regent.statemachine.store.RegentStore;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * State-machine apply throughput per entry kind: decode + {@code Applier.apply} + applied index + one LMDB
 * commit per entry, as {@code RegentStateMachine.applyTransaction} does, under each LMDB sync mode
 * RegentStore offers. Run: {@code java -jar bench-jmh/target/benchmarks.jar ApplyBench}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-opens", "java.base/java.nio=ALL-UNNAMED", "--add-opens",
    "java.base/sun.nio.ch=ALL-UNNAMED"})
public class ApplyBench {
  /**
   * nosync: a Raft replica (no fsync: the log is durable); nometasync: one fsync per commit (replicas
   * before 2026-11-30, tools); durable: full sync (single-writer mode).
   */
  @Param({"nosync", "nometasync", "durable"})
  public String sync;

  private Path dir;
  RegentStore store;
  long index;
  private long lease;
  private long token;
  private long freshHolderToken;
  private boolean held;
  private long[] batch;

  @Setup(Level.Trial)
  public void open() {
    dir = Stores.tempDir("regent-apply");
    store = Stores.open(dir, sync);
    index = 1;
    lease = Stores.apply(store, Stores.grant(3_600_000), index++).grants().get(0).getId();
    freshHolderToken = Stores.apply(store, Stores.campaign("fresh", lease), index++).result().getName().getHolder()
        .getToken();
  }

  @TearDown(Level.Trial)
  public void close() {
    store.close();
    Stores.delete(dir);
  }

  /** Grant: a new lease record. */
  @Benchmark
  public ApplyOutcome grant() {
    return Stores.apply(store, Stores.grant(10_000), index++);
  }

  /** Campaign and Resign alternately on one free name (each op is one entry). */
  @Benchmark
  public ApplyOutcome campaignResign() {
    LogEntry.Builder e = held ? LogEntry.newBuilder().setResign(Resign.newBuilder().setName("c").setToken(token))
        : Stores.campaign("c", lease);
    ApplyOutcome o = Stores.apply(store, e, index);
    token = index++;
    held = !held;
    return o;
  }

  /** FreshToken for the holder of one name. */
  @Benchmark
  public ApplyOutcome freshToken() {
    ApplyOutcome o = Stores.apply(store, LogEntry.newBuilder()
        .setFreshToken(FreshToken.newBuilder().setName("fresh").setToken(freshHolderToken)), index);
    freshHolderToken = index++;
    return o;
  }

  /** Confirm renewing one lease: the entry a batch of keepalives rides on. */
  @Benchmark
  public ApplyOutcome confirm() {
    return Stores.apply(store, LogEntry.newBuilder().setConfirm(Confirm.newBuilder().addRenewLeaseIds(lease)),
        index++);
  }

  /** Grant then Revoke alternately (each op is one entry). */
  @Benchmark
  public ApplyOutcome grantRevoke() {
    if (batch == null) {
      ApplyOutcome o = Stores.apply(store, Stores.grant(10_000), index++);
      batch = new long[] {o.grants().get(0).getId()};
      return o;
    }
    ApplyOutcome o = Stores.apply(store, LogEntry.newBuilder().setRevoke(Revoke.newBuilder().setLeaseId(batch[0])),
        index++);
    batch = null;
    return o;
  }

  /**
   * What group commit would give: 16 Grant entries applied in one LMDB transaction (one commit, one fsync),
   * as a state machine could do for entries Ratis hands it back to back. The score counts entries.
   */
  @Benchmark
  @OperationsPerInvocation(16)
  public long grantGroupCommit16() {
    index = Stores.fill(store, index, 16, 16);
    return index;
  }

  /** Mass expiry: one Expire entry ending 1 000 leases (the server's batch limit); granting them is untimed. */
  @State(Scope.Thread)
  public static class ExpireBatch {
    long[] ids;

    @Setup(Level.Invocation)
    public void grant(ApplyBench b) {
      ids = new long[1000];
      long first = b.index;
      b.index = Stores.fill(b.store, first, ids.length, ids.length);
      for (int i = 0; i < ids.length; i++) {
        ids[i] = first + i;
      }
    }
  }

  /** One Expire of 1 000 leases; multiply the score by 1 000 for leases/s. */
  @Benchmark
  public ApplyOutcome expire1000(ExpireBatch b) {
    Expire.Builder e = Expire.newBuilder().setProposerTerm(1);
    for (long id : b.ids) {
      e.addLeaseIds(id);
    }
    return Stores.apply(store, LogEntry.newBuilder().setExpire(e), index++);
  }
}
