package io.regent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The --exec command's environment, its own exit, and how it is stopped; the token file it reads. */
class ExecChildTest {
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
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> Files.exists(ready));
      long start = System.nanoTime();

      assertThat(child.stop()).isEqualTo(128 + 9);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(ExecChild.GRACE_MS);
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
