package io.regent.cli;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** How to start another {@code regent} process: the same java binary, class path and main class as this one. */
final class Launcher {
  /** JVM options of server nodes: a bounded heap, so that a laptop can run five of them. */
  static final List<String> SERVER_JVM = List.of("-Xmx512m");
  /** JVM options of short-lived clients: start fast. */
  static final List<String> CLIENT_JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m");

  private Launcher() {
  }

  /** {@code java OPTS -cp CLASSPATH io.regent.cli.Regent}; append the command's arguments. */
  static List<String> javaCommand(List<String> jvmOptions) {
    String java = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> classPath = new ArrayList<>();
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!e.isEmpty()) {
        classPath.add(Path.of(e).toAbsolutePath().normalize().toString());
      }
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.addAll(jvmOptions);
    // LMDB's ByteBuffer proxy needs these on Java 17 (docs/architecture.md §11); harmless when unused.
    cmd.addAll(List.of("--add-opens", "java.base/java.nio=ALL-UNNAMED", "--add-opens",
        "java.base/sun.nio.ch=ALL-UNNAMED", "-cp", String.join(File.pathSeparator, classPath),
        Regent.class.getName()));
    return cmd;
  }
}
