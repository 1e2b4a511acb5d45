package io.regent.statemachine.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.support.Entries;
import io.regent.statemachine.support.Replica;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Chubby's lock-delay: after a holder's lease expires the name stays unowned until EndLockDelay. */
class LockDelayTest {
  @TempDir
  Path dir;
  Replica r;
  long a;
  long b;

  @BeforeEach
  void setUp() {
    r = Replica.open(dir);
    a = r.grantLease();
    b = r.grantLease();
    r.apply(Entries.campaign("jobs", a, "a", 5_000));
    r.apply(Entries.campaign("jobs", b, "b", 0));
  }

  @AfterEach
  void tearDown() {
    r.close();
  }

  @Test
  void anExpiredHolderWithALockDelayLeavesTheNameUnownedAndReportsTheDelay() {
    // The expired holder may still be acting on a resource that cannot check tokens.
    ApplyOutcome out = r.apply(Entries.expire(Replica.TERM, a));
    assertThat(r.name("jobs").hasHolder()).isFalse();
    assertThat(r.name("jobs").getLockDelayMs()).isEqualTo(5_000);
    assertThat(out.lockDelays()).extracting(n -> n.getName()).containsExactly("jobs");
    assertThat(out.events()).noneMatch(e -> e.kind() == ChangeEvent.Kind.ELECTED);
  }

  @Test
  void campaignsDuringTheDelayWaitAndEndLockDelayPassesTheNameOn() {
    long start = r.nextIndex();
    r.apply(Entries.expire(Replica.TERM, a));
    long c = r.grantLease();
    assertThat(r.apply(Entries.campaign("jobs", c, "c", 0)).result().getElected()).isFalse();
    long end = r.nextIndex();
    r.apply(Entries.endLockDelay("jobs", Replica.TERM, start));
    assertThat(r.name("jobs").getHolder().getLeaseId()).isEqualTo(b);
    assertThat(r.name("jobs").getHolder().getToken()).isEqualTo(end);
    assertThat(r.name("jobs").getLockDelayMs()).isZero();
  }

  @Test
  void aCleanResignOrARevokeHasNoDelay() {
    long token = r.name("jobs").getHolder().getToken();
    r.apply(Entries.resign("jobs", token));
    assertThat(r.name("jobs").getHolder().getLeaseId()).isEqualTo(b);
    r.apply(Entries.revoke(b));
    assertThat(r.name("jobs")).isNull();
  }

  @Test
  void anEndLockDelayDecidedInAnotherTermChangesNothing() {
    long start = r.nextIndex();
    r.apply(Entries.expire(Replica.TERM, a));
    String before = r.tables();
    assertThat(r.apply(Entries.endLockDelay("jobs", Replica.TERM + 1, start)).result().getCode())
        .isEqualTo(Code.FAILED_PRECONDITION);
    assertThat(r.tables()).isEqualTo(before);
  }

  @Test
  void aDelayedNameWithoutCandidatesIsKeptUntilTheDelayEnds() {
    r.apply(Entries.withdraw("jobs", b));
    long start = r.nextIndex();
    r.apply(Entries.expire(Replica.TERM, a));
    assertThat(r.name("jobs")).isNotNull();
    r.apply(Entries.endLockDelay("jobs", Replica.TERM, start));
    assertThat(r.name("jobs")).isNull();
  }

  @Test
  void theDelayRecordsTheIndexThatStartedIt() {
    long start = r.nextIndex();
    r.apply(Entries.expire(Replica.TERM, a));
    assertThat(r.name("jobs").getLockDelayStartIndex()).isEqualTo(start);
  }

  @Test
  void aLateCopyOfAnEarlierEndLockDelayCannotCutANewerDelayShort() {
    long firstStart = r.nextIndex();
    r.apply(Entries.expire(Replica.TERM, a));
    r.apply(Entries.endLockDelay("jobs", Replica.TERM, firstStart)); // b takes the name
    long e = r.grantLease();
    r.apply(Entries.campaign("jobs", e, "e", 5_000));
    r.apply(Entries.revoke(b)); // e takes the name: a revoke starts no delay
    long secondStart = r.nextIndex();
    r.apply(Entries.expire(Replica.TERM, e)); // a second delay, in the same term
    String before = r.tables();

    r.apply(Entries.endLockDelay("jobs", Replica.TERM, firstStart)); // a retried copy of the first end
    assertThat(r.tables()).as("the newer delay is still in force").isEqualTo(before);

    r.apply(Entries.endLockDelay("jobs", Replica.TERM, secondStart));
    assertThat(r.name("jobs")).as("ended by the entry aimed at it").isNull();
  }
}
