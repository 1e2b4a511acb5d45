package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.LeaseKeepAliveManyRequest;
import io.regent.api.v1.LeaseKeepAliveManyResponse;
import io.regent.api.v1.LeaseKeepAliveRequest;
import io.regent.api.v1.LeaseKeepAliveResponse;
import io.regent.api.v1.LeaseTimeToLiveRequest;
import io.regent.api.v1.LeaseTimeToLiveResponse;
import io.regent.server.lease.FixedTimekeeper;
import io.regent.server.limits.LeaseQuota;
import io.regent.server.limits.NameQuota;
import io.regent.server.limits.ServerLimits;
import io.regent.server.confirm.Confirmer;
import io.regent.server.single.SingleWriterLog;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.replica.LeaseVerdict;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a client hears about a lease the leader has decided expires but whose Expire has not applied (a
 * failover would keep it, so the answer must be retryable), and that remaining time is never negative.
 * The real apply and Confirm path; the leader's clock is a stub that answers what each test sets.
 */
class ExpiringLeaseTest {
  @TempDir
  Path dir;
  /** What the stub leader clock answers for every lease: remaining ms, -1 (cannot vouch) or -2 (expiring). */
  volatile LeaseVerdict measured = LeaseVerdict.measured(5_000);
  SingleWriterLog log;
  LeaseService leases;
  volatile long nodeNanos = 42_000_000_000L;
  long lease;

  @BeforeEach
  void setUp() {
    log = new SingleWriterLog(dir, new FixedTimekeeper(() -> measured, () -> true), new EventHub(100));
    Confirmer confirmer = new Confirmer(log);
    leases = new LeaseService(log, confirmer, new StateReader(confirmer, log, Runnable::run, StateReaderTest.REPLAYED),
        new LeaseGrants(2_000, ServerLimits.DEFAULTS, new LeaseQuota(100), new LeaseQuota(100), new NameQuota(100),
            log, Runnable::run), () -> null, new NodeClock(() -> "n1", () -> nodeNanos, 1_700_000_000_000L));
    lease = log.propose(LogEntry.newBuilder().setGrant(Grant.newBuilder().setTtlMs(5_000))).join().getLeaseId();
  }

  @AfterEach
  void tearDown() {
    log.close();
  }

  static <Q, R> Status call(BiConsumer<Q, StreamObserver<R>> rpc, Q request, R[] reply) {
    CompletableFuture<Status> done = new CompletableFuture<>();
    rpc.accept(request, new StreamObserver<R>() {
      @Override
      public void onNext(R value) {
        reply[0] = value;
      }

      @Override
      public void onError(Throwable t) {
        done.complete(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        done.complete(Status.OK);
      }
    });
    return done.orTimeout(10, TimeUnit.SECONDS).join();
  }

  Status keepAlive() {
    return call(leases::keepAlive, LeaseKeepAliveRequest.newBuilder().setId(lease).build(),
        new LeaseKeepAliveResponse[1]);
  }

  Status timeToLive(LeaseTimeToLiveResponse[] reply) {
    return call(leases::timeToLive, LeaseTimeToLiveRequest.newBuilder().setId(lease).build(), reply);
  }

  @Test
  void aKeepaliveOfAnExpiringLeaseIsRetryableNotNotFound() {
    measured = LeaseVerdict.EXPIRING;
    Status s = keepAlive();
    assertThat(s.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(s.getDescription()).contains("expiring");
  }

  @Test
  void aKeepaliveOfAGoneLeaseIsNotFound() {
    log.propose(LogEntry.newBuilder().setRevoke(io.regent.statemachine.proto.Revoke.newBuilder().setLeaseId(lease)))
        .join();
    assertThat(keepAlive().getCode()).isEqualTo(Status.Code.NOT_FOUND);
  }

  @Test
  void timeToLiveOfAnExpiringLeaseIsRetryable() {
    measured = LeaseVerdict.EXPIRING;
    assertThat(timeToLive(new LeaseTimeToLiveResponse[1]).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void timeToLiveNeverAnswersANegativeRemainingTime() {
    measured = LeaseVerdict.UNVOUCHED; // the node that applied the round was not the ready leader of its term
    LeaseTimeToLiveResponse[] reply = new LeaseTimeToLiveResponse[1];
    assertThat(timeToLive(reply).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(reply[0]).isNull();
    measured = LeaseVerdict.measured(1_234);
    assertThat(timeToLive(reply).getCode()).isEqualTo(Status.Code.OK);
    assertThat(reply[0].getRemainingMs()).isEqualTo(1_234);
  }

  @Test
  void keepAliveManyReportsAnExpiringLeaseAsNotRenewed() {
    measured = LeaseVerdict.EXPIRING;
    LeaseKeepAliveManyResponse[] reply = new LeaseKeepAliveManyResponse[1];
    assertThat(call(leases::keepAliveMany, LeaseKeepAliveManyRequest.newBuilder().addIds(lease).build(), reply)
        .getCode()).isEqualTo(Status.Code.OK);
    assertThat(reply[0].getResults(0).getTtlMs()).isZero();
  }

  @Test
  void aRenewedKeepaliveCarriesTheAnsweringNodesClock() {
    LeaseKeepAliveResponse[] reply = new LeaseKeepAliveResponse[1];
    assertThat(call(leases::keepAlive, LeaseKeepAliveRequest.newBuilder().setId(lease).build(), reply).getCode())
        .isEqualTo(Status.Code.OK);
    assertThat(reply[0].getNodeClockMs()).isEqualTo(42_000);
    assertThat(reply[0].getNode()).isEqualTo("n1");
    assertThat(reply[0].getNodeStartedMs()).isEqualTo(1_700_000_000_000L);
  }
}
