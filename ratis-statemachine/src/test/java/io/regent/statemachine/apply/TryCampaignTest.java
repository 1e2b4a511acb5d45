package io.regent.statemachine.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.support.Entries;
import io.regent.statemachine.support.Replica;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A no-wait campaign takes a free name or leaves no trace: its "not elected" can never be overturned. */
class TryCampaignTest {
  @TempDir
  Path dir;

  @Test
  void aTryCampaignOnAHeldNameQueuesNothingSoALaterResignDoesNotElectIt() {
    try (Replica r = Replica.open(dir)) {
      long a = r.grantLease();
      long b = r.grantLease();
      r.apply(Entries.campaign("jobs", a, "a"));
      String before = r.tables();
      assertThat(r.apply(Entries.tryCampaign("jobs", b, "b")).result().getElected()).isFalse();
      assertThat(r.tables()).isEqualTo(before);
      r.apply(Entries.resign("jobs", r.name("jobs").getHolder().getToken()));
      assertThat(r.name("jobs")).isNull();
    }
  }

  @Test
  void aTryCampaignOnAFreeNameTakesIt() {
    try (Replica r = Replica.open(dir)) {
      long a = r.grantLease();
      long index = r.nextIndex();
      assertThat(r.apply(Entries.tryCampaign("jobs", a, "a")).result().getElected()).isTrue();
      assertThat(r.name("jobs").getHolder().getToken()).isEqualTo(index);
    }
  }
}
