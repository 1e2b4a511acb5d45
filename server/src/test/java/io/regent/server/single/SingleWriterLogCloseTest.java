package io.regent.server.single;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.regent.server.lease.Lessor;
import io.regent.server.replication.Proposer;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.store.StateTxn;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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

  /**
   * A read under way when the close begins (held open by a latch): the store closes only after the read ends, and
   * reads after the close are refused. Before, the close freed LMDB under the open read transaction: a CI run's JVM
   * died with exit 134 while MethodRulesTest closed a single writer its health check was reading.
   */
  @Test
  void closeWaitsForTheReadUnderWayAndRefusesLaterReads() throws Exception {
    ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    try {
      SingleWriterLog log = new SingleWriterLog(dir.resolve("read"), new Lessor(System::nanoTime, timers, 50, 500),
          new EventHub(100));
      CountDownLatch reading = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      CompletableFuture<Long> read = CompletableFuture.supplyAsync(() -> log.read(txn -> {
        long applied = txn.appliedIndex();
        reading.countDown();
        awaitUninterruptibly(release);
        return applied;
      }));
      reading.await();
      Thread closer = new Thread(log::close, "closer");
      closer.start();
      // the closer either waits for the read (WAITING on the lock) or has closed the store under it
      await().until(() -> closer.getState() == Thread.State.WAITING || !closer.isAlive());
      boolean closedUnderTheRead = !closer.isAlive();
      release.countDown();
      assertThat(read.join()).isZero();
      closer.join();
      assertThat(closedUnderTheRead).as("the store closed while a read was under way").isFalse();
      assertThatThrownBy(() -> log.read(StateTxn::appliedIndex)).isInstanceOf(Proposer.UnavailableException.class);
    } finally {
      timers.shutdownNow();
    }
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
