package io.regent.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.cli.Regent;
import org.junit.jupiter.api.Test;

/** Launcher names the main class as a string (its package may not use the root command's): the name is right. */
class LauncherTest {
  @Test
  void theMainClassIsRegent() {
    assertThat(Launcher.MAIN_CLASS).isEqualTo(Regent.class.getName());
    assertThat(Launcher.javaCommand(Launcher.CLIENT_JVM)).endsWith(Regent.class.getName());
  }
}
