package io.regent.bench.jmh;

import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.store.RegentStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Snapshot and restart costs for a state of N leases: {@code RegentStore.copyTo} (sync + compacting LMDB
 * copy, what a Ratis snapshot writes; its size is printed), and opening the environment plus reading every
 * lease (what a node does on restart before re-arming lease deadlines as the ready leader).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "--add-opens", "java.base/java.nio=ALL-UNNAMED", "--add-opens",
    "java.base/sun.nio.ch=ALL-UNNAMED"})
public class SnapshotBench {
  @Param({"100000", "1000000"})
  public int leases;

  private Path dir;
  private RegentStore store;
  private Path target;

  @Setup(Level.Trial)
  public void fill() {
    dir = Stores.tempDir("regent-snap");
    store = RegentStore.open(dir.resolve("lmdb"));
    Stores.fill(store, 1, leases, 10_000);
  }

  @Setup(Level.Invocation)
  public void target() {
    target = dir.resolve("snapshot-" + System.nanoTime());
  }

  @TearDown(Level.Invocation)
  public void report() throws Exception {
    if (Files.exists(target)) {
      System.out.printf("%n[snapshot] %d leases: %d bytes%n", leases, Files.size(target));
      Files.delete(target);
    }
  }

  @TearDown(Level.Trial)
  public void close() {
    store.close();
    Stores.delete(dir);
  }

  /** Writes a snapshot copy of the whole state. */
  @Benchmark
  public long snapshot() {
    return store.copyTo(target);
  }

  /** Opens the environment afresh and reads every lease (restart, then the leader re-arms each deadline). */
  @Benchmark
  public int reopenAndReadAll() {
    store.close();
    store = RegentStore.open(dir.resolve("lmdb"));
    List<LeaseRecord> all = store.read(txn -> txn.allLeases());
    return all.size();
  }
}
