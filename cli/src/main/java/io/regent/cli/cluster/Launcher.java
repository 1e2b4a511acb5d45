package io.regent.cli.cluster;

import io.regent.process.ChildProcess;
import java.util.List;

/** How to start another {@code regent} process: the same java binary, class path and main class as this one. */
public final class Launcher {
  /** JVM options of server nodes: a bounded heap, so that a laptop can run five of them. */
  static final List<String> SERVER_JVM = List.of("-Xmx512m");
  /** JVM options of short-lived clients: start fast. */
  public static final List<String> CLIENT_JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m");

  /**
   * The main class, {@code io.regent.cli.Regent}, by name: this package is below the root command and may not
   * use it (PackageRulesTest); LauncherTest checks the name.
   */
  static final String MAIN_CLASS = "io.regent.cli.Regent";

  private Launcher() {
  }

  /** {@code java OPTS -cp CLASSPATH io.regent.cli.Regent}; append the command's arguments. */
  public static List<String> javaCommand(List<String> jvmOptions) {
    return ChildProcess.javaCommand(jvmOptions, MAIN_CLASS);
  }
}
