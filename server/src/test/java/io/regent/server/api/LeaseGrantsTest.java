package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Context;
import io.grpc.StatusRuntimeException;
import io.regent.server.lease.FixedTimekeeper;
import io.regent.server.limits.Admission;
import io.regent.server.limits.ConnectionLimiter;
import io.regent.server.limits.LeaseQuota;
import io.regent.server.limits.NameQuota;
import io.regent.server.limits.ServerLimits;
import io.regent.server.single.SingleWriterLog;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.replica.LeaseVerdict;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A granted lease's names count before its grant is answered: the identity's next campaign, sent once the answer
 * arrives, finds them counted. The names are counted on a pool this test runs by hand (an injected ordering): a
 * clean-clone verify once saw a campaign with a TTL answered before its elected name counted, and the identity's
 * next campaign pass its limit (IdentityQuotaTest).
 */
class LeaseGrantsTest {
  @TempDir
  Path dir;
  final EventHub hub = new EventHub(100);
  final NameQuota names = new NameQuota(1);
  final Queue<Runnable> pool = new ArrayDeque<>();
  SingleWriterLog log;
  LeaseGrants grants;

  @BeforeEach
  void setUp() {
    log = new SingleWriterLog(dir, new FixedTimekeeper(() -> LeaseVerdict.measured(60_000), () -> true), hub);
    hub.listen(names);
    grants = new LeaseGrants(1_000, ServerLimits.DEFAULTS, new LeaseQuota(100), new LeaseQuota(100), names, log,
        pool::add);
  }

  @AfterEach
  void tearDown() {
    log.close();
  }

  @Test
  void aGrantThatElectedIsAnsweredOnlyOnceItsNameCounts() throws Exception {
    // a campaign with a TTL: one entry grants the lease and elects its name
    long lease = log.propose(LogEntry.newBuilder().setGrant(Grant.newBuilder().setTtlMs(60_000))).join()
        .getLeaseId();
    Result elected = log.propose(LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName("a")
        .setLeaseId(lease))).join();

    CompletableFuture<Result> answer = Context.current()
        .withValues(ConnectionLimiter.CONNECTION, "conn-1", Admission.IDENTITY, "team")
        .call(() -> grants.propose(() -> CompletableFuture.completedFuture(elected.toBuilder().setLeaseId(lease)
            .build())));

    assertThat(answer).as("answered before its names counted").isNotDone();
    pool.remove().run();
    assertThat(answer).isCompletedWithValueMatching(r -> r.getLeaseId() == lease);
    assertThat(names.count("team")).isEqualTo(1);
    assertThatThrownBy(() -> names.check("team", 1)).isInstanceOf(StatusRuntimeException.class)
        .hasMessageContaining("--max-names-per-identity 1");
  }

  @Test
  void aRefusedGrantIsAnsweredAtOnceAndCountsNothing() throws Exception {
    Result refused = Result.newBuilder().setCode(Code.RESOURCE_EXHAUSTED).build();
    CompletableFuture<Result> answer = Context.current()
        .withValues(ConnectionLimiter.CONNECTION, "conn-1", Admission.IDENTITY, "team")
        .call(() -> grants.propose(() -> CompletableFuture.completedFuture(refused)));

    assertThat(answer).isCompletedWithValue(refused);
    assertThat(pool).isEmpty();
    assertThat(names.count("team")).isZero();
  }
}
