package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ElectionLogTest {
  @Test
  void theFirstElectionWonSinceAMomentInAnyLog(@TempDir Path dir) throws Exception {
    Path n1 = Files.writeString(dir.resolve("n1.log"), String.join("\n",
        "2026-12-06 17:50:20.000 INFO  [n1@g-LeaderElection1] o.a.r.s.i.LeaderElection - n1: ELECTION PASSED received",
        "2026-12-06 17:50:31.900 INFO  [n1@g-LeaderElection3] o.a.r.s.i.LeaderElection - n1: ELECTION PASSED received",
        "\tat a stack frame without a stamp ELECTION PASSED"));
    Path n3 = Files.writeString(dir.resolve("n3.log"),
        "2026-12-06 17:50:31.048 INFO  [n3@g-LeaderElection2] o.a.r.s.i.LeaderElection - n3: ELECTION PASSED received\n");
    long since = ElectionLog.stamp("2026-12-06 17:50:30.000 x");
    assertThat(ElectionLog.firstWonSince(List.of(n1, n3), since)).hasValue(since + 1_048);
    assertThat(ElectionLog.firstWonSince(List.of(n1, n3), since + 5_000)).isEmpty();
  }

  @Test
  void theLastElectionWonBetweenTwoMomentsInAnyLog(@TempDir Path dir) throws Exception {
    // n2 won first and was deposed; n3 won 4 s later and served the write acknowledged at 17:50:36
    Path n2 = Files.writeString(dir.resolve("n2.log"),
        "2026-12-06 17:50:31.000 INFO  [n2@g-LeaderElection1] o.a.r.s.i.LeaderElection - n2: ELECTION PASSED received\n");
    Path n3 = Files.writeString(dir.resolve("n3.log"), String.join("\n",
        "2026-12-06 17:50:35.000 INFO  [n3@g-LeaderElection2] o.a.r.s.i.LeaderElection - n3: ELECTION PASSED received",
        "2026-12-06 17:50:40.000 INFO  [n3@g-LeaderElection3] o.a.r.s.i.LeaderElection - n3: ELECTION PASSED received"));
    long since = ElectionLog.stamp("2026-12-06 17:50:30.000 x");
    assertThat(ElectionLog.lastWonBetween(List.of(n2, n3), since, since + 6_000)).hasValue(since + 5_000);
    assertThat(ElectionLog.lastWonBetween(List.of(n2, n3), since, since + 2_000)).hasValue(since + 1_000);
    assertThat(ElectionLog.lastWonBetween(List.of(n2, n3), since, since + 500)).isEmpty();
  }
}
