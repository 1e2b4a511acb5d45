package io.regent.statemachine.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.MemberApi;
import io.regent.statemachine.store.RegentStore;
import io.regent.statemachine.store.StateTxn;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** MemberApi entries: the replicated directory of members' API addresses, kept apart from leases and names. */
class MemberApiTest {
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

  private Code apply(String id, String address) {
    long at = ++index;
    return store.write(txn -> {
      ApplyOutcome out = Applier.apply(txn, LogEntry.newBuilder().setVersion(EntryCodec.VERSION)
          .setMemberApi(MemberApi.newBuilder().setMemberId(id).setApiAddress(address)).build(), at, 1);
      txn.setAppliedIndex(at);
      return out;
    }).result().getCode();
  }

  private Map<String, String> directory() {
    return store.read(StateTxn::memberApis);
  }

  @Test
  void recordsReplacesAndForgetsAddresses() {
    assertThat(apply("n1", "10.0.0.1:7101")).isEqualTo(Code.OK);
    assertThat(apply("n2", "10.0.0.2:7101")).isEqualTo(Code.OK);
    assertThat(apply("n1", "10.0.0.9:7101")).isEqualTo(Code.OK);
    assertThat(directory()).containsExactly(Map.entry("n1", "10.0.0.9:7101"), Map.entry("n2", "10.0.0.2:7101"));
    assertThat(apply("n1", "")).isEqualTo(Code.OK);
    assertThat(directory()).containsExactly(Map.entry("n2", "10.0.0.2:7101"));
    // The directory shares the meta table with the applied index: neither shows up in the other.
    assertThat(store.read(StateTxn::appliedIndex)).isEqualTo(index);
  }

  @Test
  void refusesAnEmptyOrOverlongIdAndChangesNothing() {
    apply("n1", "10.0.0.1:7101");
    assertThat(apply("", "10.0.0.2:7101")).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(apply("x".repeat(StateTxn.MAX_MEMBER_ID_BYTES + 1), "10.0.0.2:7101")).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(directory()).containsExactly(Map.entry("n1", "10.0.0.1:7101"));
  }
}
