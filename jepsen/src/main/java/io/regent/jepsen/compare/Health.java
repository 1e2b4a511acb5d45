package io.regent.jepsen.compare;

import io.regent.bench.load.Target;
import io.regent.jepsen.cluster.Node;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Whether every node of a deployment serves: each answers a linearizable read through itself alone. */
final class Health {
  private static final Duration CALL = Duration.ofSeconds(3);

  private Health() {
  }

  /**
   * Waits until every node runs and answers a linearizable {@code leader} read on its own endpoint.
   *
   * @return empty when healthy, else what was still wrong when {@code timeout} ran out (the first word is
   *     the node id when one node is to blame)
   */
  static Optional<String> await(Deployment d, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    String problem = "not checked";
    while (System.nanoTime() < end) {
      problem = check(d);
      if (problem == null) {
        return Optional.empty();
      }
      Thread.sleep(250);
    }
    return Optional.of(problem);
  }

  private static String check(Deployment d) {
    for (Node n : d.nodes()) {
      if (!n.alive()) {
        return n.id() + " is not running" + (n.exitCode() == null ? "" : " (exit " + n.exitCode() + ")");
      }
      try (Target t = Target.connect(d.kind(), List.of(n.endpoint()), 0)) {
        Calls.within(CALL, () -> t.leaderRead("compare-health"));
      } catch (Exception e) {
        return n.id() + " answers " + Prober.kind(e);
      }
    }
    return null;
  }
}
