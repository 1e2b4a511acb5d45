package io.regent.jepsen.runner;

import io.regent.jepsen.cluster.Shell;
import java.nio.file.Path;

/** What the server jar supports, asked from {@code regent server --help}. */
public final class ServerFlags {
  private ServerFlags() {
  }

  /** True if {@code regent server} accepts {@code --unsafe-local-grants} (a negative control). */
  public static boolean supportsUnsafeLocalGrants(Path jar) {
    return supports(jar, "--unsafe-local-grants");
  }

  /**
   * True if {@code regent server} accepts the switch {@code flag} (a negative control's). The switches are
   * hidden from the help text, so this gives it with a data directory but no {@code --id}: a server that
   * knows the switch stops at the missing {@code --id}, one that does not says "Unknown option". Nothing is
   * started or created either way.
   */
  public static boolean supports(Path jar, String flag) {
    Shell.Outcome out = Shell.run(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
        jar.toAbsolutePath().toString(), "server", flag, "--data-dir",
        Path.of(System.getProperty("java.io.tmpdir"), "regent-jepsen-flag-probe").toString());
    return !out.output().contains("Unknown option") && out.output().contains("--id");
  }

  /** Throws if the negative control that needs {@code flag} cannot run against this jar: it must not pass silently. */
  static void require(Path jar, String flag) {
    if (!supports(jar, flag)) {
      throw new IllegalStateException("`regent server` in " + jar + " has no " + flag + " switch: "
          + "the negative control cannot run against this build");
    }
  }
}
