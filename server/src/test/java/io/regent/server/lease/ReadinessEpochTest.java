package io.regent.server.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.replica.LeaderReadiness;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.RegentStore;
import io.regent.statemachine.store.StateTxn;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readiness against step-downs (docs/architecture.md §3.4): Ratis reports readiness on the
 * apply thread and step-downs on an RPC thread, while the readiness scan of every lease takes seconds. The
 * step-down is injected at the scan, so both orderings are deterministic.
 */
class ReadinessEpochTest {
  @TempDir
  Path dir;
  final AtomicLong now = new AtomicLong(1_000_000_000L);
  final List<LogEntry> proposed = new ArrayList<>();
  final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  RegentStore store;
  Lessor lessor;
  LeaderReadiness readiness;
  /** Runs inside the readiness scan, after the state was read. */
  Runnable duringScan = () -> { };

  @BeforeEach
  void setUp() {
    store = RegentStore.open(dir);
    store.write(txn -> {
      txn.putLease(LeaseRecord.newBuilder().setId(1).setTtlMs(2000).build());
      return null;
    });
    lessor = new Lessor(now::get, scheduler, TimeUnit.DAYS.toMillis(1), 1_000);
    lessor.setProposer(e -> {
      proposed.add(e.build());
      return new CompletableFuture<Result>();
    });
    readiness = new LeaderReadiness(lessor, new ReplicaView() {
      @Override
      public <T> T read(Function<StateTxn, T> body) {
        T t = store.read(body);
        duringScan.run();
        return t;
      }

      @Override
      public EventHub hub() {
        throw new UnsupportedOperationException();
      }
    });
  }

  @AfterEach
  void tearDown() {
    lessor.close();
    scheduler.shutdownNow();
    store.close();
  }

  /** Whatever the lessor proposes once every lease is long past its deadline. */
  List<LogEntry> proposedAfterEveryDeadline() {
    now.addAndGet(TimeUnit.SECONDS.toNanos(10));
    lessor.tick();
    return proposed;
  }

  @Test
  void aLeaderDeposedDuringTheScanDoesNotBecomeReady() {
    duringScan = () -> readiness.notLeader(3);
    readiness.ready(3);
    assertThat(proposedAfterEveryDeadline()).as("a follower proposes no Expire").isEmpty();
  }

  @Test
  void aStepDownThatRaisedTheTermBeforeTheReadinessLendsItNoTerm() {
    // The startup entry of term 3 was applied; before the readiness ran, a vote request of term 4 deposed the node.
    readiness.notLeader(4);
    readiness.ready(3);
    assertThat(proposedAfterEveryDeadline()).as("no Expire, least of all one of term 4").isEmpty();
  }

  @Test
  void aStepDownAfterTheReadinessEndsTheEpoch() {
    readiness.ready(3);
    readiness.notLeader(3);
    assertThat(proposedAfterEveryDeadline()).isEmpty();
  }

  @Test
  void aReadyLeaderExpiresInTheTermOfItsStartupEntry() {
    readiness.ready(3);
    assertThat(proposedAfterEveryDeadline()).singleElement()
        .satisfies(e -> assertThat(e.getExpire().getProposerTerm()).isEqualTo(3));
  }
}
