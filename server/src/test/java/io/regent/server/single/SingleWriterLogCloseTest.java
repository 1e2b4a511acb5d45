package io.regent.server.single;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.server.lease.Lessor;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SingleWriterLogCloseTest {
  @TempDir
  Path dir;

  /**
   * Closing the log while commands are queued: the one being committed ends before the LMDB environment closes,
   * the rest fail. Before, close() closed the environment under a running commit, and the JVM died in
   * {@code mdb_txn_commit} (SIGSEGV; seen once in a test run whose teardown raced a renewal).
   */
  @Test
  void closeWaitsForTheCommitInFlightAndFailsTheRest() throws Exception {
    ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    try {
      for (int round = 0; round < 20; round++) {
        Lessor lessor = new Lessor(System::nanoTime, timers, 50, 500);
        SingleWriterLog log = new SingleWriterLog(dir.resolve("r" + round), lessor, new EventHub(100));
        List<CompletableFuture<Result>> sent = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
          sent.add(log.propose(LogEntry.newBuilder().setGrant(Grant.newBuilder().setTtlMs(60_000))));
        }
        log.close();
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).handle((r, e) -> null).join();
        long done = sent.stream().filter(f -> !f.isCompletedExceptionally()).count();
        assertThat(done).as("commands committed before the close").isLessThan(2_000);
      }
    } finally {
      timers.shutdownNow();
    }
  }
}
