package io.regent.statemachine.apply;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.regent.statemachine.event.ChangeEvent.Kind;
import io.regent.statemachine.proto.CampaignAll;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.support.Entries;
import io.regent.statemachine.support.FreshReplica;
import io.regent.statemachine.support.Replica;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** CampaignAll: every name or none, in one entry, one token; queued as one candidate when any is held. */
@ExtendWith(FreshReplica.class)
class CampaignAllTest {
  @Test
  void freeNamesAreAllTakenWithTheEntrysIndex(Replica r) {
    long a = r.grantLease();
    long index = r.nextIndex();
    var out = r.apply(all(a, "x", "y", "z"));
    assertThat(out.result().getElected()).isTrue();
    assertThat(out.events()).filteredOn(e -> e.kind() == Kind.ELECTED).hasSize(3);
    for (String n : List.of("x", "y", "z")) {
      assertThat(r.name(n).getHolder().getToken()).isEqualTo(index);
    }
    assertThat(r.lease(a).getNamesList()).containsExactly("x", "y", "z");
    String before = r.tables();
    assertThat(r.apply(all(a, "x", "y", "z")).result().getElected()).as("a retry").isTrue();
    assertThat(r.tables()).isEqualTo(before);
  }

  @Test
  void whenOneNameIsHeldNoneIsTakenUntilAllAreFree(Replica r) {
    // Rule: all or none. While y is held, x stays free but reserved: a single campaign for x queues behind.
    long holder = r.grantLease();
    long a = r.grantLease();
    long late = r.grantLease();
    long yToken = r.apply(Entries.campaign("y", holder, "h")).result().getName().getHolder().getToken();
    Result res = r.apply(all(a, "x", "y")).result();
    assertThat(res.getElected()).isFalse();
    assertThat(r.name("x").hasHolder()).isFalse();
    assertThat(r.apply(Entries.campaign("x", late, "l")).result().getElected()).as("x is reserved").isFalse();
    long resign = r.nextIndex();
    r.apply(Entries.resign("y", yToken));
    assertThat(r.name("x").getHolder().getLeaseId()).isEqualTo(a);
    assertThat(r.name("y").getHolder().getLeaseId()).isEqualTo(a);
    assertThat(r.name("x").getHolder().getToken()).isEqualTo(resign);
    assertThat(r.name("y").getHolder().getToken()).isEqualTo(resign);
    assertThat(r.name("x").getCandidates(0).getLeaseId()).isEqualTo(late);
  }

  @Test
  void aWithdrawnOrEndedAllCandidateLeavesEveryLineAndUnblocksTheNext(Replica r) {
    long holder = r.grantLease();
    long a = r.grantLease();
    long late = r.grantLease();
    r.apply(Entries.campaign("y", holder, "h"));
    r.apply(all(a, "x", "y"));
    r.apply(Entries.campaign("x", late, "l"));
    long revoke = r.nextIndex();
    r.apply(Entries.revoke(a));
    assertThat(r.name("x").getHolder().getLeaseId()).as("the next in line takes x").isEqualTo(late);
    assertThat(r.name("x").getHolder().getToken()).isEqualTo(revoke);
    assertThat(r.name("y").getCandidatesList()).isEmpty();

    long b = r.grantLease();
    r.apply(all(b, "y", "z"));
    assertThat(r.name("z").getCandidatesList()).hasSize(1);
    r.apply(Entries.withdraw("y", b));
    assertThat(r.name("z")).as("withdrawn from every name").isNull();
    assertThat(r.lease(b).getNamesList()).isEmpty();
  }

  @Test
  void badInputChangesNothing(Replica r) {
    long a = r.grantLease();
    r.apply(Entries.campaign("solo", a, "v"));
    String before = r.tables();
    assertThat(code(r, all(a))).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(code(r, all(a, "x", "x"))).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(code(r, all(a, "x", ""))).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(code(r, all(999, "x"))).isEqualTo(Code.NOT_FOUND);
    assertThat(code(r, all(a, "x", "solo"))).isEqualTo(Code.FAILED_PRECONDITION);
    assertThat(code(r, Entries.logged(LogEntry.newBuilder().setCampaignAll(CampaignAll.newBuilder().addNames("p").addNames("q").setLeaseId(a)
        .setMaxNames(2))))).isEqualTo(Code.RESOURCE_EXHAUSTED);
    assertThat(r.tables()).isEqualTo(before);
  }

  private static Code code(Replica r, LogEntry e) {
    return r.apply(e).result().getCode();
  }

  private static LogEntry all(long lease, String... names) {
    return Entries.logged(LogEntry.newBuilder().setCampaignAll(CampaignAll.newBuilder()
        .addAllNames(List.of(names)).setLeaseId(lease).setValue(ByteString.copyFromUtf8("v"))));
  }}
