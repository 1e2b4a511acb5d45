package io.regent.statemachine.apply;

import static io.regent.statemachine.support.Entries.batch;
import static io.regent.statemachine.support.Entries.campaign;
import static io.regent.statemachine.support.Entries.campaignWithTtl;
import static io.regent.statemachine.support.Entries.confirm;
import static io.regent.statemachine.support.Entries.freshToken;
import static io.regent.statemachine.support.Entries.grant;
import static io.regent.statemachine.support.Entries.resign;
import static io.regent.statemachine.support.Entries.revoke;
import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.ChangeEvent.Kind;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.support.FreshReplica;
import io.regent.statemachine.support.Replica;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Batch entries (docs/architecture.md §2.6): many operations in one entry, each with its own result, the token
 * rule kept literally — no name is granted twice at one index — and lease ids unique and increasing.
 */
@ExtendWith(FreshReplica.class)
class BatchApplyTest {
  private Replica replica;

  @BeforeEach
  void open(Replica fresh) {
    replica = fresh;
  }

  @Test
  void eachOperationHasItsOwnResultAndNamesOfOneBatchShareItsIndexAsToken() {
    ApplyOutcome out = replica.apply(batch(campaignWithTtl("a", 5_000, "x", 0, false),
        campaignWithTtl("b", 5_000, "y", 0, false), grant(3_000)));
    long index = out.result().getIndex();
    List<Result> results = out.result().getResultsList();
    assertThat(results).extracting(Result::getCode).containsOnly(Code.OK);
    assertThat(results).extracting(Result::getIndex).containsOnly(index);
    assertThat(results.get(0).getName().getHolder().getToken()).isEqualTo(index);
    assertThat(results.get(1).getName().getHolder().getToken()).isEqualTo(index);
    assertThat(results).extracting(Result::getLeaseId).containsExactly(index, index + 1, index + 2);
    assertThat(out.grants()).extracting(l -> l.getId()).containsExactly(index, index + 1, index + 2);
    assertThat(out.events()).extracting(ChangeEvent::kind, ChangeEvent::name)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(Kind.ELECTED, "a"),
            org.assertj.core.groups.Tuple.tuple(Kind.ELECTED, "b"));
  }

  @Test
  void leaseIdsStayUniqueAndIncreasingAfterABatchTookTheNextIndexes() {
    long first = replica.apply(batch(grant(3_000), grant(3_000), grant(3_000))).result().getIndex();
    long next = replica.apply(grant(3_000)).result().getLeaseId();
    assertThat(next).as("the ids first..first+2 are taken").isEqualTo(first + 3);
    assertThat(replica.leases()).extracting(l -> l.getId()).doesNotHaveDuplicates().hasSize(4);
  }

  /** The token rule: a name freed and taken again inside one batch would have two holders with one token. */
  @Test
  void twoGrantsOfOneNameInOneBatchAreImpossible() {
    long a = replica.grantLease();
    long b = replica.grantLease();
    long token = replica.apply(campaign("jobs", a, "a")).result().getName().getHolder().getToken();
    replica.apply(campaign("jobs", b, "b")); // queued behind a
    long c = replica.grantLease();
    // a resigns (b takes the name at this index), then b's lease is revoked (c would take it at the same index)
    ApplyOutcome out = replica.apply(batch(campaign("jobs", c, "c"), resign("jobs", token), revoke(b)));
    List<Result> results = out.result().getResultsList();
    assertThat(results.get(0).getCode()).isEqualTo(Code.OK);
    assertThat(results.get(1).getCode()).isEqualTo(Code.OK);
    assertThat(results.get(2).getCode()).isEqualTo(Code.BATCH_CONFLICT);
    assertThat(out.events().stream().filter(e -> e.kind() == Kind.ELECTED)).hasSize(1);
    assertThat(replica.name("jobs").getHolder().getLeaseId()).isEqualTo(b);
    assertThat(replica.lease(b)).as("the refused revoke was undone").isNotNull();
    // sent again alone, it passes the name on with a larger token
    Result alone = replica.apply(revoke(b)).result();
    assertThat(alone.getCode()).isEqualTo(Code.OK);
    assertThat(replica.name("jobs").getHolder().getLeaseId()).isEqualTo(c);
    assertThat(replica.name("jobs").getHolder().getToken()).isGreaterThan(out.result().getIndex());
  }

  @Test
  void onlyClientOperationsMayBeBatched() {
    long a = replica.grantLease();
    Result r = replica.apply(batch(grant(3_000), confirm(a))).result();
    assertThat(r.getResults(0).getCode()).isEqualTo(Code.OK);
    assertThat(r.getResults(1).getCode()).isEqualTo(Code.INVALID_ARGUMENT);
  }

  @Test
  void aBatchWithoutItsVersionIsRefusedAsAWhole() {
    LogEntry unversioned = batch(grant(3_000)).toBuilder().setVersion(EntryCodec.VERSION).build();
    ApplyOutcome out = replica.apply(unversioned);
    assertThat(out.result().getCode()).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(replica.leases()).isEmpty();
  }

  /**
   * Tokens per name strictly increase, and each is the index of the entry that made its holder the owner, however
   * the cycles of campaign and resign fall into entries: a seeded schedule puts campaigns, resigns (with the
   * current holder's token, or with the token a holder elected earlier in the same batch gets) and fresh tokens of
   * three names by four leases into single entries and batches of up to six operations, so that one batch often
   * frees a name and hands it on, or hands it on twice. Every ELECTED and TOKEN_REFRESHED event is checked.
   */
  @Test
  void tokensPerNameStrictlyIncreaseHoweverCampaignsAndResignsFallIntoEntries() {
    long[] leases = {replica.grantLease(), replica.grantLease(), replica.grantLease(), replica.grantLease()};
    String[] names = {"a", "b", "c"};
    Map<String, Long> last = new HashMap<>();
    Random random = new Random(34);
    int handedOnTwice = 0;
    for (int step = 0; step < 400; step++) {
      long index = replica.nextIndex();
      List<LogEntry> ops = new ArrayList<>();
      for (int n = 1 + random.nextInt(6); n > 0; n--) {
        String name = names[random.nextInt(names.length)];
        NameRecord held = replica.name(name);
        long token = random.nextBoolean() && held != null && held.hasHolder() ? held.getHolder().getToken() : index;
        ops.add(switch (random.nextInt(3)) {
          case 0 -> campaign(name, leases[random.nextInt(leases.length)], "v" + step);
          case 1 -> resign(name, token);
          default -> freshToken(name, token);
        });
      }
      ApplyOutcome out = replica.apply(ops.size() == 1 ? ops.get(0) : batch(ops.toArray(LogEntry[]::new)));
      for (ChangeEvent e : out.events()) {
        if (e.kind() == Kind.ELECTED || e.kind() == Kind.TOKEN_REFRESHED) {
          long token = e.holder().getToken();
          assertThat(token).as("%s's token at index %d", e.name(), index).isEqualTo(index)
              .isGreaterThan(last.getOrDefault(e.name(), 0L));
          last.put(e.name(), token);
        }
      }
      handedOnTwice += (int) out.result().getResultsList().stream()
          .filter(r -> r.getCode() == Code.BATCH_CONFLICT).count();
    }
    assertThat(last).as("every name changed hands").containsOnlyKeys(names);
    assertThat(handedOnTwice).as("batches that would have granted a name twice at one index").isPositive();
  }

  /**
   * An old log, of single-operation entries only, replays to the same ids and results (format version 1): each
   * lease is named by its grant's index, also when entries that grant nothing (campaigns with a lease, resigns,
   * revokes) come between the grants — a counter of leases would name them below their index.
   */
  @Test
  void aLogOfSingleEntriesGrantsLeasesNamedByTheirIndexAsBefore() {
    long holder = replica.grantLease();
    for (int i = 0; i < 10; i++) {
      ApplyOutcome out = replica.apply(i % 2 == 0 ? grant(3_000) : campaignWithTtl("n" + i, 3_000, "v", 0, false));
      assertThat(out.result().getLeaseId()).isEqualTo(out.result().getIndex());
      long token = replica.apply(campaign("held" + i, holder, "v")).result().getName().getHolder().getToken();
      replica.apply(resign("held" + i, token));
      replica.apply(revoke(out.result().getLeaseId()));
    }
  }
}
