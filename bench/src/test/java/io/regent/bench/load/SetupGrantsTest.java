package io.regent.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SetupGrantsTest {
  /** The overload benchmark's lanes-off run ended in its set-up when a node shed one grant (issue 22 item 4). */
  @Test
  void aShedGrantIsAskedAgainAndTheRunGoesOn() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    long id = SetupGrants.grant(() -> {
      if (calls.incrementAndGet() <= 2) {
        throw Status.RESOURCE_EXHAUSTED.withDescription("--max-bulk-calls 8").asRuntimeException();
      }
      return 42;
    });
    assertThat(id).isEqualTo(42);
    assertThat(calls).hasValue(3);
  }

  /** A grant that may have been made (UNAVAILABLE, a timeout) is not sent again: the run must know its leases. */
  @Test
  void aGrantThatMayHaveBeenMadeEndsTheRun() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(() -> SetupGrants.grant(() -> {
      calls.incrementAndGet();
      throw new StatusRuntimeException(Status.UNAVAILABLE);
    })).isInstanceOf(StatusRuntimeException.class);
    assertThat(calls).hasValue(1);
  }
}
