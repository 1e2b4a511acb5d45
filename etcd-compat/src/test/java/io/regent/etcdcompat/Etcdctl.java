package io.regent.etcdcompat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs etcd's own command line, {@code etcdctl} 3.4 (Debian's etcd-client; {@code .ci/run} installs it), against
 * given endpoints. Fails, never skips, without etcdctl.
 */
final class Etcdctl {
  private Etcdctl() {
  }

  /** etcdctl's output, stdout then stderr, trimmed, and its exit code. */
  record Run(int exit, String out) {
  }

  /**
   * A long-running etcdctl ({@code watch}, {@code lock} with a waiter): its process and the file its output goes to.
   * Closing it ends the process.
   */
  record Started(Process process, Path out) implements AutoCloseable {
    /** What it printed so far. */
    String output() throws IOException {
      return Files.readString(out, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }

  /** Starts {@code etcdctl --endpoints=endpoints args...}, its output in a file under {@code dir}, and returns. */
  static Started start(Path dir, String endpoints, String... args) throws IOException {
    Path out = Files.createTempFile(dir, "etcdctl", ".out");
    ProcessBuilder pb = new ProcessBuilder(command(endpoints, args)).redirectErrorStream(true)
        .redirectOutput(out.toFile());
    return new Started(launch(pb), out);
  }

  /**
   * Runs {@code etcdctl --endpoints=endpoints args...} with {@code stdin} as its input (null: none), its output in a
   * file under {@code dir}; at most 60 s.
   */
  static Run run(Path dir, String endpoints, String stdin, String... args) throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "etcdctl", ".out");
    ProcessBuilder pb = new ProcessBuilder(command(endpoints, args)).redirectErrorStream(true)
        .redirectOutput(out.toFile());
    if (stdin != null) {
      Path in = Files.createTempFile(dir, "etcdctl", ".in");
      Files.writeString(in, stdin, StandardCharsets.UTF_8);
      pb.redirectInput(in.toFile());
    }
    Process p = launch(pb);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("etcdctl " + String.join(" ", args) + " did not end in 60 s");
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8).trim());
  }

  private static List<String> command(String endpoints, String... args) {
    List<String> cmd = new ArrayList<>(List.of("etcdctl", "--endpoints=" + endpoints, "--dial-timeout=10s",
        "--command-timeout=20s"));
    cmd.addAll(List.of(args));
    return cmd;
  }

  private static Process launch(ProcessBuilder pb) {
    pb.environment().put("ETCDCTL_API", "3");
    try {
      return pb.start();
    } catch (IOException e) {
      throw new IllegalStateException("etcdctl is not installed: apt-get install etcd-client", e);
    }
  }
}
