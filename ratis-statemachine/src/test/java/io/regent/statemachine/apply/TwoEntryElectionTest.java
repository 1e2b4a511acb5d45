package io.regent.statemachine.apply;

import io.regent.statemachine.limits.Limits;
import static io.regent.statemachine.support.Entries.campaign;
import static io.regent.statemachine.support.Entries.campaignWithTtl;
import static io.regent.statemachine.support.Entries.resignAndRevoke;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.google.protobuf.ByteString;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.ChangeEvent.Kind;
import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.Holder;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.support.FreshReplica;
import io.regent.statemachine.support.Replica;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An election in two entries (docs/architecture.md §2.2): a Campaign with a TTL grants its own
 * lease, and a Resign with revoke_lease ends it.
 */
@ExtendWith(FreshReplica.class)
class TwoEntryElectionTest {
  private static final String NAME = "leader/db";

  private Replica replica;

  @BeforeEach
  void open(Replica fresh) {
    replica = fresh;
  }

  @Test
  void campaignWithTtlGrantsLeaseNamedByItsIndexAndTakesTheName() {
    ApplyOutcome out = replica.apply(campaignWithTtl(NAME, 5_000, "a", 0, false));
    long index = out.result().getIndex();
    Holder h = out.result().getName().getHolder();
    assertThat(out.result().getCode()).isEqualTo(Code.OK);
    assertThat(out.result().getElected()).isTrue();
    assertThat(out.result().getLeaseId()).isEqualTo(index);
    assertThat(h.getLeaseId()).isEqualTo(index);
    assertThat(h.getToken()).isEqualTo(index);
    assertThat(out.grants().get(0).getId()).isEqualTo(index);
    assertThat(replica.lease(index).getTtlMs()).isEqualTo(5_000);
    assertThat(replica.lease(index).getNamesList()).containsExactly(NAME);
  }

  @Test
  void campaignWithTtlOnHeldNameQueuesItsNewLease() {
    long a = replica.grantLease();
    replica.apply(campaign(NAME, a, "a"));
    ApplyOutcome out = replica.apply(campaignWithTtl(NAME, 5_000, "b", 0, false));
    long b = out.result().getIndex();
    assertThat(out.result().getElected()).isFalse();
    assertThat(out.result().getLeaseId()).isEqualTo(b);
    assertThat(replica.name(NAME).getCandidatesList()).singleElement()
        .satisfies(c -> assertThat(c.getLeaseId()).isEqualTo(b));
    // A retry with the lease it was given keeps its place (idempotent per name and lease).
    ApplyOutcome retry = replica.apply(campaign(NAME, b, "b"));
    assertThat(retry.result().getName().getCandidatesCount()).isEqualTo(1);
  }

  @Test
  void refusedOwnLeaseCampaignsGrantNothing() {
    long a = replica.grantLease();
    replica.apply(campaign(NAME, a, "a"));
    String before = replica.tables();
    // No-wait on a held name: "not elected", and no lease left behind.
    ApplyOutcome noWait = replica.apply(campaignWithTtl(NAME, 5_000, "b", 0, true));
    assertThat(noWait.result().getElected()).isFalse();
    assertThat(noWait.result().getLeaseId()).isZero();
    assertThat(noWait.grants()).isEmpty();
    // TTL out of range, lease limit reached, both a lease id and a TTL.
    assertThat(replica.apply(campaignWithTtl("other", Limits.MAX_TTL_MS + 1, "b", 0, false)).result().getCode())
        .isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(replica.apply(campaignWithTtl("other", 5_000, "b", 1, false)).result().getCode())
        .isEqualTo(Code.RESOURCE_EXHAUSTED);
    ApplyOutcome both = replica.apply(EntryCodec.decode(EntryCodec.encode(
        LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName("other").setLeaseId(a).setTtlMs(5_000)
            .setValue(ByteString.copyFromUtf8("b"))), EntryCodec.MAX_VERSION)));
    assertThat(both.result().getCode()).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(both.result().getMessage()).contains("not both");
    assertThat(replica.tables()).isEqualTo(before);
  }

  @Test
  void resignAndRevokePassesTheNameOnAndEndsTheLeaseWithItsOtherNames() {
    ApplyOutcome first = replica.apply(campaignWithTtl(NAME, 5_000, "a", 0, false));
    long a = first.result().getLeaseId();
    replica.apply(campaign("also-held", a, "a"));
    ApplyOutcome second = replica.apply(campaignWithTtl(NAME, 5_000, "b", 0, false));
    long b = second.result().getLeaseId();
    // a also waits behind b on a third name: its candidacy must go, not be promoted.
    replica.apply(campaign("third", b, "b"));
    replica.apply(campaign("third", a, "a"));

    ApplyOutcome out = replica.apply(resignAndRevoke(NAME, first.result().getName().getHolder().getToken()));
    long index = out.result().getIndex();
    assertThat(out.result().getCode()).isEqualTo(Code.OK);
    assertThat(out.result().getLeaseId()).isEqualTo(a);
    assertThat(out.result().getName().getHolder().getLeaseId()).isEqualTo(b);
    assertThat(out.result().getName().getHolder().getToken()).isEqualTo(index);
    assertThat(out.ended()).containsExactly(a);
    assertThat(replica.lease(a)).isNull();
    assertThat(replica.name("also-held")).isNull();
    assertThat(replica.name("third").getCandidatesList()).isEmpty();
    assertThat(out.events()).extracting(ChangeEvent::kind, ChangeEvent::name).containsExactly(
        tuple(Kind.RESIGNED, NAME),
        tuple(Kind.ELECTED, NAME),
        tuple(Kind.REVOKED, "also-held"),
        tuple(Kind.LEASE_ENDED, ""));
  }

  @Test
  void resignAndRevokeWithStaleTokenChangesNothing() {
    ApplyOutcome first = replica.apply(campaignWithTtl(NAME, 5_000, "a", 0, false));
    String before = replica.tables();
    ApplyOutcome out = replica.apply(resignAndRevoke(NAME, first.result().getIndex() - 1));
    assertThat(out.result().getCode()).isEqualTo(Code.FAILED_PRECONDITION);
    assertThat(out.ended()).isEmpty();
    assertThat(replica.tables()).isEqualTo(before);
  }
}
