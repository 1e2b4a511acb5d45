package io.regent.jepsen.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs short system commands ({@code ip}, {@code kill}) and reports their exit code and output. */
public final class Shell {
  private static final long TIMEOUT_S = 20;

  private Shell() {
  }

  /**
   * The outcome of a command.
   *
   * @param exit the exit code (-1 if it could not be started or timed out)
   * @param output standard output and error, merged
   */
  public record Outcome(int exit, String output) {
    /** True for exit code 0. */
    public boolean ok() {
      return exit == 0;
    }
  }

  /** Runs a command and waits for it (at most 20 s). Never throws. */
  public static Outcome run(String... command) {
    try {
      Process p = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
      p.getOutputStream().close();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return new Outcome(-1, "timed out: " + String.join(" ", command));
      }
      return new Outcome(p.exitValue(), new String(out, StandardCharsets.UTF_8).trim());
    } catch (IOException e) {
      return new Outcome(-1, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Outcome(-1, "interrupted");
    }
  }

  /** Runs a command and throws if it fails. */
  public static String check(String... command) {
    Outcome o = run(command);
    if (!o.ok()) {
      throw new IllegalStateException("`" + String.join(" ", command) + "` failed (exit " + o.exit()
          + "): " + o.output());
    }
    return o.output();
  }
}
