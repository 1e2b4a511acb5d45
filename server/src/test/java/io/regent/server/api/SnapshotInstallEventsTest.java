package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.regent.api.v1.ObserveResponse;
import io.regent.server.limits.LeaseQuota;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Holder;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.store.RegentStore;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot installed on a lagging node replaces the events of every entry it covers: Observe streams
 * send the installed state with {@code compacted=true}, campaign waiters judge from it, the lease quota
 * forgets leases it no longer holds.
 */
class SnapshotInstallEventsTest {
  static final long INSTALLED = 20;
  @TempDir
  Path dir;
  RegentStore store;
  final EventHub hub = new EventHub(100);
  final FakeServerCall<ObserveResponse> obs = new FakeServerCall<>();

  @BeforeEach
  void setUp() {
    store = RegentStore.open(dir);
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  /** Installs a state at {@link #INSTALLED} holding {@code leases}, with lease {@code holder} holding "jobs" (0: nobody). */
  void install(long holder, long... leases) {
    store.write(txn -> {
      for (long id : leases) {
        txn.putLease(LeaseRecord.newBuilder().setId(id).setTtlMs(10_000).addNames("jobs").build());
      }
      if (holder > 0) {
        txn.putName(NameRecord.newBuilder().setName("jobs")
            .setHolder(Holder.newBuilder().setLeaseId(holder).setToken(15).setSinceIndex(15)).build());
      }
      txn.setAppliedIndex(INSTALLED);
      return null;
    });
    store.read(txn -> {
      hub.installed(txn);
      return null;
    });
  }

  static ObserveResponse current(long index) {
    return ObserveResponse.newBuilder().setKind(ObserveResponse.Kind.CURRENT).setName("jobs").setIndex(index).build();
  }

  @Test
  void anObserveStreamSendsTheInstalledStateCompactedThenTheLaterEvents() {
    ObserveStream s = new ObserveStream("jobs", obs, hub, Runnable::run, 10, () -> { });
    hub.listen(s);
    s.start(current(5), 5, 0, List.of());
    install(7, 7);
    hub.publish(21, List.of(ObserveStreamTest.elected("jobs", 21)));
    assertThat(obs.sent).extracting(ObserveResponse::getIndex).containsExactly(5L, INSTALLED, 21L);
    ObserveResponse installed = obs.sent.get(1);
    assertThat(installed.getKind()).isEqualTo(ObserveResponse.Kind.CURRENT);
    assertThat(installed.getCompacted()).isTrue();
    assertThat(installed.getLeader().getLease()).isEqualTo(7);
  }

  @Test
  void aFirstMessageReadBeforeTheInstallIsSupersededByTheInstalledState() {
    ObserveStream s = new ObserveStream("jobs", obs, hub, Runnable::run, 10, () -> { });
    hub.listen(s);
    install(0);
    s.start(current(5), 5, 0, List.of()); // the stream's first read answered from before the install
    assertThat(obs.sent).singleElement().satisfies(m -> {
      assertThat(m.getIndex()).isEqualTo(INSTALLED);
      assertThat(m.getCompacted()).isTrue();
      assertThat(m.hasLeader()).isFalse();
    });
  }

  @Test
  void aWaiterWhoseLeaseHoldsTheNameInTheInstalledStateIsElected() {
    CampaignWaiter w = new CampaignWaiter(hub, "jobs", 7, Runnable::run);
    w.arm(5);
    install(7, 7);
    assertThat(w.elected()).isCompletedWithValueMatching(h -> h.getLeaseId() == 7 && h.getToken() == 15);
  }

  @Test
  void aWaiterWhoseLeaseIsGoneInTheInstalledStateFailsNotFound() {
    CampaignWaiter w = new CampaignWaiter(hub, "jobs", 7, Runnable::run);
    w.arm(5);
    install(8, 8);
    assertThat(w.elected()).isCompletedExceptionally();
    assertThat(w.elected().handle((h, e) -> Status.fromThrowable(e).getCode()).join()).isEqualTo(Status.Code.NOT_FOUND);
  }

  @Test
  void aWaiterStillQueuedInTheInstalledStateKeepsWaitingForLaterEvents() {
    CampaignWaiter w = new CampaignWaiter(hub, "jobs", 7, Runnable::run);
    w.arm(5);
    install(8, 7, 8);
    assertThat(w.elected()).isNotDone();
    hub.publish(22, List.of(new ChangeEvent(ChangeEvent.Kind.ELECTED, "jobs",
        Holder.newBuilder().setLeaseId(7).setToken(22).build(), 22, 7)));
    assertThat(w.elected()).isCompletedWithValueMatching(h -> h.getToken() == 22);
  }

  @Test
  void aWaiterArmedAfterTheInstallJudgesFromItWhenItIncludesTheCampaign() {
    CampaignWaiter included = new CampaignWaiter(hub, "jobs", 7, Runnable::run);
    CampaignWaiter later = new CampaignWaiter(hub, "jobs", 7, Runnable::run);
    install(7, 7);
    included.arm(12); // the Campaign applied at 12, inside the snapshot
    later.arm(25); // a Campaign applied after the snapshot: only its own later events count
    assertThat(included.elected()).isCompletedWithValueMatching(h -> h.getLeaseId() == 7);
    assertThat(later.elected()).isNotDone();
  }

  @Test
  void theLeaseQuotaForgetsLeasesTheInstalledStateNoLongerHolds() {
    LeaseQuota quota = new LeaseQuota(2);
    hub.listen(quota);
    quota.reserve("c");
    quota.granted("c", 7);
    quota.reserve("c");
    quota.granted("c", 8);
    install(0, 8);
    assertThat(quota.count("c")).isEqualTo(1);
  }
}
