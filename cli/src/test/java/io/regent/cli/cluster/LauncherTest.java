package io.regent.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.cli.Regent;
import org.junit.jupiter.api.Test;

/**
 * Launcher names the main class as a string (its package may not use the root command's): the name is right; a
 * node's JVM options are the bounded heap, then {@code $REGENT_JAVA_OPTS}'s.
 */
class LauncherTest {
  @Test
  void theMainClassIsRegent() {
    assertThat(Launcher.MAIN_CLASS).isEqualTo(Regent.class.getName());
    assertThat(Launcher.javaCommand(Launcher.CLIENT_JVM)).endsWith(Regent.class.getName());
  }

  @Test
  void aNodesJvmOptionsAreTheBoundedHeapThenTheOperatorsInOrder() {
    assertThat(Launcher.serverJvm(null)).containsExactly("-Xmx512m");
    assertThat(Launcher.serverJvm(" \t")).containsExactly("-Xmx512m");
    assertThat(Launcher.serverJvm(" -Xmx1g\t -XX:TieredStopAtLevel=1 "))
        .containsExactly("-Xmx512m", "-Xmx1g", "-XX:TieredStopAtLevel=1");
  }
}
