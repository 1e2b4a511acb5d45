package io.regent.jepsen.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Op;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** What a process records stays a well-formed Knossos history, also after the process retired. */
class ClientProcessTest {
  @Test
  void aRetiredProcessRecordsTheEndOfItsBeliefUnderAnotherNumber() {
    Recorder recorder = new Recorder();
    try (ClientProcess p = new ClientProcess(23, List.of("127.0.0.1:1"), new PauseGate(), recorder,
        Duration.ofSeconds(1), new Random(1))) {
      p.invoke("resign", "e0", 7L).fail("refused");
      p.invoke("read", "e1", null).info("DEADLINE_EXCEEDED");
      assertThat(p.retired()).isTrue();
      p.instant("release", "e0", 7L, Map.of("held", List.of(1L, 2L)));
    }
    List<Op> ops = recorder.ops();
    History h = new History(ops); // was: malformed, process 23 invoking after its :info
    assertThat(ops.get(1).value()).as("a :fail carries its invoke's value").isEqualTo(7L);
    assertThat(ops.subList(4, 6)).extracting(Op::process).containsOnly(ClientProcess.retiredId(23));
    assertThat(ClientProcess.retiredId(23)).isEqualTo(-24L);
    assertThat(h.operations()).hasSize(3);
  }
}
