package io.regent.bench.jmh;

import com.google.protobuf.ByteString;
import io.regent.statemachine.apply.Applier;
import io.regent.statemachine.apply.ApplyOutcome;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.store.RegentStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Helpers shared by the benchmarks: temporary stores and applying entries as the Ratis adapter does. */
final class Stores {
  private Stores() {
  }

  /**
   * LMDB sync modes RegentStore offers: a Raft replica's (MDB_NOSYNC, the log is durable), the tools'
   * (MDB_NOMETASYNC, replicas used it before) and the single-writer's (full sync).
   */
  static RegentStore open(Path dir, String syncMode) {
    return switch (syncMode) {
      case "nosync" -> RegentStore.openUnsynced(dir);
      case "nometasync" -> RegentStore.open(dir);
      case "durable" -> RegentStore.openDurable(dir);
      default -> throw new IllegalArgumentException("sync mode " + syncMode);
    };
  }

  /** A new temporary directory under {@code $REGENT_BENCH_DIR} (default: the JVM's temp dir, on disk here). */
  static Path tempDir(String prefix) {
    try {
      String base = System.getenv().getOrDefault("REGENT_BENCH_DIR", System.getProperty("java.io.tmpdir"));
      return Files.createTempDirectory(Path.of(base), prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void delete(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Applies one entry at {@code index} in its own write transaction (one commit), like applyTransaction. */
  static ApplyOutcome apply(RegentStore store, LogEntry.Builder entry, long index) {
    LogEntry decoded = EntryCodec.decode(EntryCodec.encode(entry, EntryCodec.MAX_VERSION));
    return store.write(txn -> {
      ApplyOutcome o = Applier.apply(txn, decoded, index, 1);
      txn.setAppliedIndex(index);
      return o;
    });
  }

  static LogEntry.Builder grant(long ttlMs) {
    return LogEntry.newBuilder().setGrant(Grant.newBuilder().setTtlMs(ttlMs));
  }

  static LogEntry.Builder campaign(String name, long lease) {
    return LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName(name).setLeaseId(lease)
        .setValue(ByteString.copyFromUtf8("bench-holder")));
  }

  /**
   * Grants {@code count} leases starting at {@code firstIndex}, {@code perTxn} grants per commit (fast
   * filling of large states); returns the next free index.
   */
  static long fill(RegentStore store, long firstIndex, int count, int perTxn) {
    return fill(store, firstIndex, count, perTxn, 10_000);
  }

  /** As {@link #fill(RegentStore, long, int, int)}, with leases of {@code ttlMs}. */
  static long fill(RegentStore store, long firstIndex, int count, int perTxn, long ttlMs) {
    long index = firstIndex;
    LogEntry g = EntryCodec.decode(EntryCodec.encode(grant(ttlMs), EntryCodec.MAX_VERSION));
    for (int done = 0; done < count; ) {
      int n = Math.min(perTxn, count - done);
      long from = index;
      store.write(txn -> {
        for (int i = 0; i < n; i++) {
          Applier.apply(txn, g, from + i, 1);
        }
        txn.setAppliedIndex(from + n - 1);
        return null;
      });
      index += n;
      done += n;
    }
    return index;
  }
}
