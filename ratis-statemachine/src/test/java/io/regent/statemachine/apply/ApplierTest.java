package io.regent.statemachine.apply;

import io.regent.statemachine.limits.Limits;
import static io.regent.statemachine.support.Entries.campaign;
import static io.regent.statemachine.support.Entries.confirm;
import static io.regent.statemachine.support.Entries.confirmNames;
import static io.regent.statemachine.support.Entries.expire;
import static io.regent.statemachine.support.Entries.freshToken;
import static io.regent.statemachine.support.Entries.grant;
import static io.regent.statemachine.support.Entries.resign;
import static io.regent.statemachine.support.Entries.revoke;
import static io.regent.statemachine.support.Entries.withdraw;
import static io.regent.statemachine.support.Replica.TERM;
import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.ChangeEvent.Kind;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.Holder;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameHolder;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.support.FreshReplica;
import io.regent.statemachine.support.Replica;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Ownership rules of apply (docs/architecture.md §2.4): who holds a name, with which token, and the events it emits. */
@ExtendWith(FreshReplica.class)
class ApplierTest {
  private static final String NAME = "leader/db";

  private Replica replica;

  @BeforeEach
  void open(Replica fresh) {
    replica = fresh;
  }

  @Test
  void grantUsesEntryIndexAsLeaseId() {
    // Rule: a lease's id is the log index of its Grant entry; the TTL bound (1 h) is inclusive.
    replica.apply(confirm());
    replica.apply(confirm());
    ApplyOutcome out = replica.apply(grant(Limits.MAX_TTL_MS));
    assertThat(out.result().getCode()).isEqualTo(Code.OK);
    assertThat(out.result().getLeaseId()).isEqualTo(out.grants().get(0).getId()).isEqualTo(3);
    assertThat(replica.lease(3).getTtlMs()).isEqualTo(Limits.MAX_TTL_MS);
  }

  @Test
  void campaignOnFreeNameElectsWithEntryIndexAsToken() {
    // Rule: a Campaign that finds the name free takes it with token = sinceIndex = the entry's index.
    long a = replica.grantLease();
    ApplyOutcome out = replica.apply(campaign(NAME, a, "a"));
    Holder holder = out.result().getName().getHolder();
    assertThat(out.result().getElected()).isTrue();
    assertThat(holder.getLeaseId()).isEqualTo(a);
    assertThat(holder.getToken()).isEqualTo(holder.getSinceIndex()).isEqualTo(out.result().getIndex());
    assertThat(replica.name(NAME)).isEqualTo(out.result().getName());
  }

  @Test
  void campaignOnHeldNameQueuesCandidate() {
    // Rule: a Campaign on a held name queues the lease as a FIFO candidate without electing it.
    long a = replica.grantLease();
    long b = replica.grantLease();
    replica.apply(campaign(NAME, a, "a"));
    ApplyOutcome out = replica.apply(campaign(NAME, b, "b"));
    assertThat(out.result().getElected()).isFalse();
    assertThat(out.result().getName().getHolder().getLeaseId()).isEqualTo(a);
    assertThat(out.result().getName().getCandidatesList()).singleElement().satisfies(c -> {
      assertThat(c.getLeaseId()).isEqualTo(b);
      assertThat(c.getRegisteredIndex()).isEqualTo(out.result().getIndex());
    });
    assertThat(out.events()).isEmpty();
  }

  @Test
  void retriedCampaignIsIdempotent() {
    // Rule: a retried Campaign by the holder or a candidate returns its existing position, changes nothing.
    long a = replica.grantLease();
    long b = replica.grantLease();
    ApplyOutcome first = replica.apply(campaign(NAME, a, "a"));
    ApplyOutcome queued = replica.apply(campaign(NAME, b, "b"));
    String before = replica.tables();

    ApplyOutcome holderRetry = replica.apply(campaign(NAME, a, "a"));
    ApplyOutcome candidateRetry = replica.apply(campaign(NAME, b, "b"));

    assertThat(holderRetry.result().getElected()).isTrue();
    assertThat(holderRetry.result().getName().getHolder()).isEqualTo(first.result().getName().getHolder());
    assertThat(candidateRetry.result().getElected()).isFalse();
    assertThat(candidateRetry.result().getName()).isEqualTo(queued.result().getName());
    assertThat(holderRetry.events()).isEmpty();
    assertThat(candidateRetry.events()).isEmpty();
    assertThat(replica.tables()).isEqualTo(before);
  }

  @Test
  void tokensStrictlyIncreaseAcrossTransfers() {
    // Rule: each transfer (Campaign, Resign, Revoke, Expire) issues token = its entry's index: tokens rise.
    long a = replica.grantLease();
    long b = replica.grantLease();
    long c = replica.grantLease();
    long d = replica.grantLease();
    List<Long> tokens = new ArrayList<>();
    tokens.add(electedToken(replica.apply(campaign(NAME, a, "a"))));
    replica.apply(campaign(NAME, b, "b"));
    replica.apply(campaign(NAME, c, "c"));
    replica.apply(campaign(NAME, d, "d"));
    tokens.add(electedToken(replica.apply(resign(NAME, tokens.get(0)))));
    replica.apply(grant(1_000));
    tokens.add(electedToken(replica.apply(revoke(b))));
    tokens.add(electedToken(replica.apply(expire(TERM, c))));

    assertThat(tokens).hasSize(4).isSorted().doesNotHaveDuplicates();
    assertThat(replica.name(NAME).getHolder().getLeaseId()).isEqualTo(d);
  }

  @Test
  void expireOfHolderPassesNameToNextLiveCandidate() {
    // Rule: leases ending in one entry are never promoted by it; the first live candidate takes the name.
    long a = replica.grantLease();
    long b = replica.grantLease();
    long c = replica.grantLease();
    replica.apply(campaign(NAME, a, "a"));
    replica.apply(campaign(NAME, b, "b"));
    replica.apply(campaign(NAME, c, "c"));

    ApplyOutcome out = replica.apply(expire(TERM, b, a));

    NameRecord rec = replica.name(NAME);
    assertThat(rec.getHolder().getLeaseId()).isEqualTo(c);
    assertThat(rec.getCandidatesList()).isEmpty();
    assertThat(electedToken(out)).isEqualTo(rec.getHolder().getToken());
    assertThat(out.events()).filteredOn(e -> e.kind() == Kind.EXPIRED).extracting(ChangeEvent::leaseId)
        .containsExactly(a);
    assertThat(out.ended()).containsExactlyInAnyOrder(a, b);
    assertThat(replica.leases()).extracting(LeaseRecord::getId).containsExactly(c);
  }

  @Test
  void freshTokenGivesEntryIndexAndKeepsHolder() {
    // Rule: FreshToken with the current token sets token = its entry's index; holder, value and since stay.
    long a = replica.grantLease();
    Holder before = replica.apply(campaign(NAME, a, "a")).result().getName().getHolder();
    ApplyOutcome out = replica.apply(freshToken(NAME, before.getToken()));
    Holder after = replica.name(NAME).getHolder();
    assertThat(out.result().getCode()).isEqualTo(Code.OK);
    assertThat(after.getToken()).isEqualTo(out.result().getIndex()).isGreaterThan(before.getToken());
    assertThat(after.toBuilder().setToken(before.getToken()).build()).isEqualTo(before);
  }

  @Test
  void freshTokenTellsObserversTheNewToken() {
    // Rule: watchers learn every token change of the holder, or they would keep fencing with the old one.
    long a = replica.grantLease();
    Holder before = replica.apply(campaign(NAME, a, "a")).result().getName().getHolder();
    ApplyOutcome out = replica.apply(freshToken(NAME, before.getToken()));
    assertThat(out.events()).singleElement().satisfies(e -> {
      assertThat(e.kind()).isEqualTo(Kind.TOKEN_REFRESHED);
      assertThat(e.kind().isOwnershipChange()).as("carried by Observe").isTrue();
      assertThat(e.name()).isEqualTo(NAME);
      assertThat(e.holder()).isEqualTo(replica.name(NAME).getHolder());
      assertThat(e.index()).isEqualTo(out.result().getIndex());
    });
  }

  @Test
  void withdrawnCandidateIsNeverElected() {
    // Rule: Withdraw removes a waiting candidacy, so later transfers skip that lease.
    long a = replica.grantLease();
    long b = replica.grantLease();
    long c = replica.grantLease();
    long tokenA = replica.apply(campaign(NAME, a, "a")).result().getName().getHolder().getToken();
    replica.apply(campaign(NAME, b, "b"));
    replica.apply(campaign(NAME, c, "c"));

    replica.apply(withdraw(NAME, b));
    ApplyOutcome resignA = replica.apply(resign(NAME, tokenA));
    ApplyOutcome resignC = replica.apply(resign(NAME, resignA.result().getName().getHolder().getToken()));

    assertThat(resignA.result().getName().getHolder().getLeaseId()).isEqualTo(c);
    assertThat(resignC.events()).extracting(ChangeEvent::kind).containsExactly(Kind.RESIGNED);
    assertThat(replica.name(NAME)).isNull();
    assertThat(replica.lease(b).getNamesList()).isEmpty();
  }

  @Test
  void resignWithCandidateEmitsResignedThenElected() {
    // Rule: a Resign that passes the name on emits RESIGNED then ELECTED, both at the Resign's index.
    Holder first = heldWithOneCandidate();
    long a = first.getLeaseId();
    long b = replica.name(NAME).getCandidates(0).getLeaseId();
    ApplyOutcome out = replica.apply(resign(NAME, first.getToken()));
    long index = out.result().getIndex();
    Holder next = out.result().getName().getHolder();
    assertThat(next.getLeaseId()).isEqualTo(b);
    assertThat(out.events()).containsExactly(
        new ChangeEvent(Kind.RESIGNED, NAME, null, index, a),
        new ChangeEvent(Kind.ELECTED, NAME, next, index, b));
  }

  @Test
  void confirmReportsTheHolderOfEachQueriedNameAndChangesNothing() {
    // Rule: a Confirm answers a linearizable read with the holders as of its own index (the reply a follower
    // uses instead of waiting to learn the commit); names without a holder are answered without one, invalid
    // names not at all; no state changes.
    Holder held = heldWithOneCandidate();
    List<NameRecord> namesBefore = replica.names();
    List<LeaseRecord> leasesBefore = replica.leases();
    ApplyOutcome out = replica.apply(confirmNames(NAME, "free", "", "x".repeat(Limits.MAX_NAME_BYTES + 1), NAME));
    assertThat(out.result().getCode()).isEqualTo(Code.OK);
    assertThat(out.result().getNamesList()).containsExactly(
        NameHolder.newBuilder().setName(NAME).setHolder(held).build(),
        NameHolder.newBuilder().setName("free").build(),
        NameHolder.newBuilder().setName(NAME).setHolder(held).build());
    assertThat(out.events()).isEmpty();
    assertThat(replica.names()).isEqualTo(namesBefore);
    assertThat(replica.leases()).isEqualTo(leasesBefore);
  }

  /** Grants two leases; the first takes {@link #NAME}, the second queues for it. Returns the holder. */
  private Holder heldWithOneCandidate() {
    long a = replica.grantLease();
    long b = replica.grantLease();
    Holder held = replica.apply(campaign(NAME, a, "a")).result().getName().getHolder();
    replica.apply(campaign(NAME, b, "b"));
    return held;
  }

  /** The token of the one ELECTED event of {@code out}, checked to be the entry's index. */
  private static long electedToken(ApplyOutcome out) {
    List<ChangeEvent> elected = out.events().stream().filter(e -> e.kind() == Kind.ELECTED).toList();
    assertThat(elected).hasSize(1);
    assertThat(elected.get(0).holder().getToken()).isEqualTo(out.result().getIndex());
    return elected.get(0).holder().getToken();
  }
}
