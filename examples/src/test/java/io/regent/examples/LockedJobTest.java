package io.regent.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.client.RegentClient;
import io.regent.testing.LocalRegentCluster;
import io.regent.testing.RegentClusterExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs the lock example twice at once, as two instances would, against the module's 3-node cluster. */
@Tag("cluster")
@Timeout(120)
@ExtendWith(RegentClusterExtension.class)
class LockedJobTest {
  private static final Pattern LOCKED = Pattern.compile("locked \\S+ token=(\\d+) at=(\\d+)");
  private static final Pattern UNLOCKED = Pattern.compile("unlocked \\S+ at=(\\d+)");

  /** What one run printed, and its exit status. */
  private record Run(int exit, String out) {
    long token() {
      return Long.parseLong(find(LOCKED).group(1));
    }

    long lockedAt() {
      return Long.parseLong(find(LOCKED).group(2));
    }

    long unlockedAt() {
      return Long.parseLong(find(UNLOCKED).group(1));
    }

    private Matcher find(Pattern p) {
      Matcher m = p.matcher(out);
      assertThat(m.find()).as("%s in:%n%s", p, out).isTrue();
      return m;
    }
  }

  @Test
  void twoRunsAtOnceTakeTurnsAndTheLaterHasTheLargerToken(LocalRegentCluster cluster) {
    String name = RegentClusterExtension.name("nightly-report");
    CompletableFuture<Run> a = CompletableFuture.supplyAsync(() -> run(cluster, name));
    CompletableFuture<Run> b = CompletableFuture.supplyAsync(() -> run(cluster, name));
    Run one = a.join();
    Run two = b.join();
    for (Run r : new Run[] {one, two}) {
      assertThat(r.exit()).as(r.out()).isZero();
      assertThat(r.out()).contains("step 3 token=" + r.token());
    }
    Run first = one.lockedAt() <= two.lockedAt() ? one : two;
    Run second = first == one ? two : one;
    assertThat(second.lockedAt()).as("the second run locked only after the first unlocked")
        .isGreaterThanOrEqualTo(first.unlockedAt());
    assertThat(second.token()).as("the later run's fencing token").isGreaterThan(first.token());
  }

  /** One instance of the job: a client of its own, as a second process would have. */
  private static Run run(LocalRegentCluster cluster, String name) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (RegentClient client = RegentClient.connect(cluster.endpoints());
         PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      int exit = LockedJob.run(client, name, 3, out);
      return new Run(exit, bytes.toString(StandardCharsets.UTF_8));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
