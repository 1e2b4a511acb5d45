package io.regent.cli.cluster;

import io.regent.process.ChildProcess;
import java.util.ArrayList;
import java.util.List;

/** How to start another {@code regent} process: the same java binary, class path and main class as this one. */
public final class Launcher {
  /** JVM options of server nodes before the operator's own: a bounded heap, so that a laptop can run five. */
  static final List<String> SERVER_JVM = List.of("-Xmx512m");
  /** The variable whose options follow {@link #SERVER_JVM}: the release launcher's, docs/cli.md "Running a cluster". */
  static final String JAVA_OPTS_ENV = "REGENT_JAVA_OPTS";
  /** JVM options of short-lived clients: start fast. */
  public static final List<String> CLIENT_JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m");

  /**
   * The main class, {@code io.regent.cli.Regent}, by name: this package is below the root command and may not
   * use it (PackageRulesTest); LauncherTest checks the name.
   */
  static final String MAIN_CLASS = "io.regent.cli.Regent";

  private Launcher() {
  }

  /**
   * The JVM options of a node {@code cluster up} starts: {@link #SERVER_JVM}, then {@code javaOpts} split at
   * whitespace (the value of {@code $REGENT_JAVA_OPTS}; null or blank adds nothing), so that a later option, such
   * as another {@code -Xmx}, wins as it does on a {@code java} command line.
   */
  static List<String> serverJvm(String javaOpts) {
    List<String> options = new ArrayList<>(SERVER_JVM);
    if (javaOpts != null && !javaOpts.isBlank()) {
      options.addAll(List.of(javaOpts.strip().split("\\s+")));
    }
    return options;
  }

  /** {@code java OPTS -cp CLASSPATH io.regent.cli.Regent}; append the command's arguments. */
  public static List<String> javaCommand(List<String> jvmOptions) {
    return ChildProcess.javaCommand(jvmOptions, MAIN_CLASS);
  }
}
