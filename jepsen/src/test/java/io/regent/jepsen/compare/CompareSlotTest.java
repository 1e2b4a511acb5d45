package io.regent.jepsen.compare;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import io.regent.jepsen.cluster.Netns;
import io.regent.jepsen.cluster.Node;
import io.regent.jepsen.cluster.RunLock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compare target is stopped, its network namespaces with it, while its run still holds the network slot: a
 * target stopped after the slot was freed let another run take the slot and find the namespaces as left behind
 * (RestartIT failed so in a clean-clone verify, beside CompareSmokeIT). It takes a real slot (RunLock's file lock):
 * while other Jepsen runs hold both, the target fails to start and the test fails saying no stop was seen.
 */
class CompareSlotTest {
  @TempDir
  Path out;

  /** A target whose nodes cannot be asked (its health check fails at once); records whether its slot was held. */
  private static final class Unhealthy implements Deployment {
    private final RunLock lock;
    private final List<Boolean> heldAtClose;

    Unhealthy(RunLock lock, List<Boolean> heldAtClose) {
      this.lock = lock;
      this.heldAtClose = heldAtClose;
    }

    @Override
    public String label() {
      return "regent-3";
    }

    @Override
    public String kind() {
      return "regent";
    }

    @Override
    public boolean singleWriter() {
      return false;
    }

    @Override
    public List<Node> nodes() {
      throw new IllegalStateException("the nodes did not start");
    }

    @Override
    public Optional<Netns> netns() {
      return Optional.empty();
    }

    @Override
    public Optional<Node> leader() {
      return Optional.empty();
    }

    @Override
    public void close() {
      heldAtClose.add(lock.held());
    }
  }

  @Test
  void aTargetIsStoppedBeforeItsSlotIsFreed() {
    List<Boolean> heldAtClose = new ArrayList<>();
    Compare compare = new Compare(Plan.smoke(), out, out.resolve("regent.jar"), 1,
        (label, dir, lock) -> new Unhealthy(lock, heldAtClose));
    JsonObject t = compare.target("regent-3");
    assertThat(heldAtClose).as("a stop of the target (%s)", t).isNotEmpty();
    assertThat(t.get("status").getAsString()).isEqualTo("failed");
    assertThat(t.get("reason").getAsString()).contains("the nodes did not start");
    assertThat(heldAtClose).as("the slot held when the target was stopped").containsExactly(true);
  }
}
