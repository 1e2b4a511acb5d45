package io.regent.server.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.server.lease.FixedTimekeeper;
import io.regent.server.single.SingleWriterLog;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Resign;
import io.regent.statemachine.proto.Revoke;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.replica.LeaseVerdict;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.StateTxn;
import java.nio.file.Path;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A granted lease's names are read from the state outside the quota's monitor; what its lease does while that read
 * is under way is folded in after it, by log index. Each test applies entries at a chosen point of the read (an
 * injected ordering) through a real apply path.
 */
class NameQuotaTest {
  @TempDir
  Path dir;
  final EventHub hub = new EventHub(100);
  final NameQuota quota = new NameQuota(10);
  SingleWriterLog log;
  long lease;

  @BeforeEach
  void setUp() {
    log = new SingleWriterLog(dir, new FixedTimekeeper(() -> LeaseVerdict.measured(60_000), () -> true), hub);
    hub.listen(quota);
    lease = log.propose(LogEntry.newBuilder().setGrant(Grant.newBuilder().setTtlMs(60_000))).join().getLeaseId();
  }

  @AfterEach
  void tearDown() {
    log.close();
  }

  private Result campaign(String name) {
    return log.propose(LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName(name).setLeaseId(lease)))
        .join();
  }

  private void resign(String name, long token) {
    log.propose(LogEntry.newBuilder().setResign(Resign.newBuilder().setName(name).setToken(token))).join();
  }

  /** The replica, with {@code after} run once its read has returned and before the quota folds it in. */
  private ReplicaView thenApplying(Runnable after) {
    return new ReplicaView() {
      @Override
      public <T> T read(Function<StateTxn, T> body) {
        T read = log.read(body);
        after.run();
        return read;
      }

      @Override
      public EventHub hub() {
        return hub;
      }
    };
  }

  @Test
  void theNamesALeaseHoldsAtItsAnswerCount() {
    campaign("a");
    campaign("b");
    quota.granted("team", lease, log);
    assertThat(quota.count("team")).isEqualTo(2);
  }

  @Test
  void aNameResignedAfterTheReadIsNotCounted() {
    long token = campaign("a").getIndex();
    quota.granted("team", lease, thenApplying(() -> resign("a", token)));
    assertThat(quota.count("team")).as("the read saw 'a' held; its resignation came after").isZero();
  }

  @Test
  void aNameElectedAfterTheReadCountsOnce() {
    campaign("a");
    quota.granted("team", lease, thenApplying(() -> campaign("b")));
    assertThat(quota.count("team")).isEqualTo(2);
  }

  @Test
  void aLeaseRevokedAfterTheReadCountsNothing() {
    campaign("a");
    quota.granted("team", lease, thenApplying(() -> log.propose(LogEntry.newBuilder()
        .setRevoke(Revoke.newBuilder().setLeaseId(lease))).join()));
    assertThat(quota.count("team")).isZero();
  }

  @Test
  void aReadThatFailsIsReportedAndALaterCountOfTheLeaseStartsClean() {
    campaign("a");
    // the read's failure, as NameQuota sees it: read() throws (LMDB's readers full)
    ReplicaView failing = thenApplying(() -> {
      throw new IllegalStateException("readers full");
    });
    assertThatThrownBy(() -> quota.granted("team", lease, failing)).hasMessage("readers full");
    campaign("b");
    quota.granted("team", lease, log);
    assertThat(quota.count("team")).as("a later count of the same lease starts clean").isEqualTo(2);
  }
}
