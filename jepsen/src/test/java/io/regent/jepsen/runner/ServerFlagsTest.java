package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.jepsen.workload.Workloads;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A negative control that cannot run says so and stops the run; it never passes without having run. */
class ServerFlagsTest {
  @Test
  void eachWorkloadHasItsUnsafeSwitch() {
    assertThat(Workloads.negativeControlFlag("ownership")).contains("--unsafe-skip-release");
    assertThat(Workloads.negativeControlFlag("ledger")).contains("--unsafe-local-grants");
    assertThat(Workloads.negativeControlFlag("etcdctl-lock")).as("its control is its clients'").isEmpty();
  }

  @Test
  void aServerWithoutTheSwitchStopsTheNegativeControl(@TempDir Path dir) throws Exception {
    Path jar = Files.writeString(dir.resolve("regent.jar"), "not a jar");
    assertThatThrownBy(() -> ServerFlags.require(jar, "--unsafe-skip-release"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("has no --unsafe-skip-release switch")
        .hasMessageContaining("the negative control cannot run");
  }
}
