package io.regent.statemachine.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.store.RegentStore;
import io.regent.statemachine.support.Entries;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cell's replica numbers its leases from its base (docs/architecture.md §14): the id names the cell. */
class CellLeaseIdTest {
  private static final long BASE = 3L << 48;

  private static Result apply(RegentStore store, LogEntry e, long index) {
    return store.write(txn -> {
      ApplyOutcome out = Applier.apply(txn, e, index, 1, false, BASE);
      txn.setAppliedIndex(index);
      return out;
    }).result();
  }

  @Test
  void leasesOfACellAreNumberedFromItsBaseAndNamesKeepTheIndexAsToken(@TempDir Path dir) {
    try (RegentStore store = RegentStore.open(dir)) {
      Result first = apply(store, Entries.grant(5_000), 7);
      assertThat(first.getLeaseId()).isEqualTo(BASE + 7);
      Result elected = apply(store, Entries.campaign("jobs", first.getLeaseId(), "a"), 8);
      assertThat(elected.getCode()).isEqualTo(Code.OK);
      assertThat(elected.getName().getHolder().getToken()).as("a token stays the cell's log index").isEqualTo(8);
      assertThat(elected.getName().getHolder().getLeaseId()).isEqualTo(BASE + 7);
      assertThat(apply(store, Entries.grant(5_000), 9).getLeaseId()).isEqualTo(BASE + 9);
    }
  }
}
