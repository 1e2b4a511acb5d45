package io.regent.cli.holder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.process.ProcessExit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The --exec command's environment, its own exit, and how it is stopped; the token file it reads. */
public class ExecChildTest {
  private static final LeaderKey KEY = LeaderKey.newBuilder().setName("jobs").setValue(ByteString.copyFromUtf8("a"))
      .setToken(412).setLease(398).build();

  @TempDir
  Path dir;

  @Test
  void theCommandSeesTheHoldersEnvironmentAndItsStatusIsReturned() throws Exception {
    Path seen = dir.resolve("seen");
    CountDownLatch exited = new CountDownLatch(1);
    try (TokenFile file = TokenFile.create(412)) {
      file.write(415);
      ExecChild child = ExecChild.start(List.of("sh", "-c", "echo \"$REGENT_NAME $REGENT_FENCING_TOKEN "
          + "$REGENT_LEASE_ID $(cat \"$REGENT_FENCING_TOKEN_FILE\")\" > " + seen + "; exit 7"), KEY, file,
          exited::countDown);

      assertThat(child.await()).isEqualTo(7);
      assertThat(exited.await(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(Files.readString(seen).strip()).isEqualTo("jobs 412 398 415");
  }

  @Test
  void stopSendsSigtermFirst() throws Exception {
    try (TokenFile file = TokenFile.create(1)) {
      ExecChild child = ExecChild.start(List.of("sleep", "30"), KEY, file, () -> { });

      assertThat(child.stop()).isEqualTo(128 + 15);
    }
  }

  @Test
  void aCommandThatIgnoresSigtermIsKilledAfterTheGracePeriod() throws Exception {
    Path ready = dir.resolve("ready");
    try (TokenFile file = TokenFile.create(1)) {
      ExecChild child = ExecChild.start(List.of("sh", "-c", "trap '' TERM; touch " + ready + "; while :; do sleep "
          + "0.1; done"), KEY, file, () -> { });
      await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(ready));
      long start = System.nanoTime();

      assertThat(child.stop()).isEqualTo(128 + 9);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(ExecChild.GRACE_MS);
    }
  }

  @Test
  void aSuspendedCommandIsFrozenWithWhatItStartedThawedOnResumeAndStoppedBySigtermWhileFrozen() throws Exception {
    try (TokenFile file = TokenFile.create(1)) {
      ExecChild child = ExecChild.start(List.of("sh", "-c", "sleep 1000 & wait"), KEY, file, () -> { });
      ProcessHandle sh = child.handle();
      ProcessHandle sleep = await().atMost(Duration.ofSeconds(10)).until(() -> sh.children().findFirst(),
          Optional::isPresent).orElseThrow();

      child.suspend();
      await().atMost(Duration.ofSeconds(10)).until(() -> state(sh) == 'T' && state(sleep) == 'T');

      child.resume();
      await().atMost(Duration.ofSeconds(10)).until(() -> state(sh) != 'T' && state(sleep) != 'T');

      child.suspend();
      await().atMost(Duration.ofSeconds(10)).until(() -> state(sh) == 'T' && state(sleep) == 'T');
      long start = System.nanoTime();
      assertThat(child.stop()).as("sh ended by SIGTERM").isEqualTo(128 + 15);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("no SIGKILL needed")
          .isLessThan(ExecChild.GRACE_MS);
      assertThat(ProcessExit.ended(sleep)).as("what it started ended").isTrue();
    }
  }

  @Test
  void aKilledCommandRunsNoSigtermHandlerWhereAStoppedOneDoes() throws Exception {
    for (boolean kill : new boolean[] {false, true}) {
      Path ready = dir.resolve("ready-" + kill);
      Path termed = dir.resolve("termed-" + kill);
      try (TokenFile file = TokenFile.create(1)) {
        ExecChild child = ExecChild.start(List.of("sh", "-c", "trap 'touch " + termed + "; exit 3' TERM; touch "
            + ready + "; while :; do sleep 0.1; done"), KEY, file, () -> { });
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(ready));
        child.suspend(); // frozen, as a suspended holder's command is when its lease is then lost
        await().atMost(Duration.ofSeconds(10)).until(() -> state(child.handle()) == 'T');

        if (kill) {
          assertThat(child.kill()).isEqualTo(128 + 9);
          assertThat(termed).as("no instruction ran after the loss").doesNotExist();
        } else {
          assertThat(child.stop()).as("control: thawed to handle SIGTERM, it runs its handler").isEqualTo(3);
          assertThat(termed).exists();
        }
      }
    }
  }

  /** The state letter of a process (/proc/PID/stat field 3): T when stopped; '?' once it is gone. */
  public static char state(ProcessHandle p) {
    try {
      String stat = Files.readString(Path.of("/proc", String.valueOf(p.pid()), "stat"));
      return stat.substring(stat.lastIndexOf(')') + 1).trim().charAt(0);
    } catch (java.io.IOException e) {
      return '?';
    }
  }

  @Test
  void theTokenFileIsReplacedWholeAndGoneOnClose() throws Exception {
    Path path;
    try (TokenFile file = TokenFile.create(5)) {
      path = file.path();
      assertThat(TokenFile.read(path)).isEqualTo(OptionalLong.of(5));
      file.write(9);
      assertThat(TokenFile.read(path)).isEqualTo(OptionalLong.of(9));
    }
    assertThat(TokenFile.read(path)).isEmpty();
  }
}
