package io.regent.statemachine.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.MemberApi;
import io.regent.statemachine.proto.MemberTiming;
import io.regent.statemachine.store.RegentStore;
import io.regent.statemachine.store.StateTxn;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** MemberTiming entries: each member's published Raft timing, which bounds the leadership lease (§8.1). */
class MemberTimingTest {
  private RegentStore store;
  private long index;

  @BeforeEach
  void open(@TempDir Path dir) {
    store = RegentStore.open(dir);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private Code apply(LogEntry.Builder e) {
    long at = ++index;
    return store.write(txn -> {
      ApplyOutcome out = Applier.apply(txn, e.setVersion(EntryCodec.VERSION).build(), at, 1);
      txn.setAppliedIndex(at);
      return out;
    }).result().getCode();
  }

  private static LogEntry.Builder timing(String id, long minMs, boolean preVote) {
    return LogEntry.newBuilder().setMemberTiming(MemberTiming.newBuilder().setMemberId(id)
        .setMinElectionTimeoutMs(minMs).setPreVote(preVote));
  }

  @Test
  void recordsAndReplacesTimingsApartFromApiAddresses() {
    assertThat(apply(timing("n1", 600, true))).isEqualTo(Code.OK);
    assertThat(apply(timing("n2", 900, true))).isEqualTo(Code.OK);
    assertThat(apply(timing("n1", 300, false))).isEqualTo(Code.OK);
    assertThat(apply(LogEntry.newBuilder().setMemberApi(MemberApi.newBuilder().setMemberId("n1")
        .setApiAddress("10.0.0.1:7101")))).isEqualTo(Code.OK);
    Map<String, MemberTiming> t = store.read(StateTxn::memberTimings);
    assertThat(t).containsOnlyKeys("n1", "n2");
    assertThat(t.get("n1").getMinElectionTimeoutMs()).isEqualTo(300);
    assertThat(t.get("n1").getPreVote()).isFalse();
    assertThat(t.get("n2").getMinElectionTimeoutMs()).isEqualTo(900);
    assertThat(store.read(StateTxn::memberApis)).containsExactly(Map.entry("n1", "10.0.0.1:7101"));
  }

  @Test
  void refusesAnEmptyIdOrNoTimeoutAndChangesNothing() {
    apply(timing("n1", 600, true));
    assertThat(apply(timing("", 600, true))).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(apply(timing("x".repeat(StateTxn.MAX_MEMBER_ID_BYTES + 1), 600, true)))
        .isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(apply(timing("n1", 0, true))).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(store.read(StateTxn::memberTimings).get("n1").getMinElectionTimeoutMs()).isEqualTo(600);
  }
}
