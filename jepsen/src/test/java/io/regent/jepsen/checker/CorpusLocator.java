package io.regent.jepsen.checker;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds the outside Knossos corpus, {@code shared/knossos-corpus} beside the project root (so {@code
 * ../shared/knossos-corpus} from the repository, {@code ../../shared/knossos-corpus} from this module),
 * by walking up from {@code user.dir}; the system property {@code knossos.corpus} overrides. The corpus is
 * Knossos's test data and is not in this repository: a clean clone has none, and the tests that read it are
 * then reported as skipped with the reason, never as passed.
 */
public final class CorpusLocator {
  private CorpusLocator() {
  }

  /** The corpus directory, or {@code null} if it is absent. */
  public static Path locate() {
    String override = System.getProperty("knossos.corpus");
    if (override != null) {
      Path p = Path.of(override);
      return Files.isDirectory(p) ? p : null;
    }
    for (Path d = Path.of(System.getProperty("user.dir")).toAbsolutePath(); d != null;
        d = d.getParent()) {
      Path candidate = d.resolve("shared").resolve("knossos-corpus");
      if (Files.isDirectory(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  /**
   * The corpus directory; when it is absent, aborts the calling test, which JUnit then reports as skipped
   * (not passed) with a message naming {@code what} was not checked and how to supply the corpus.
   */
  public static Path require(String what) {
    Path corpus = locate();
    String override = System.getProperty("knossos.corpus");
    Assumptions.assumeTrue(corpus != null, () -> "SKIPPED, not checked: " + what + ". " + (override != null
        ? "-Dknossos.corpus=" + override + " is not a directory"
        : "The Knossos corpus shared/knossos-corpus was not found in " + System.getProperty("user.dir")
            + " or a directory above it (-Dknossos.corpus=DIR names it)"));
    return corpus;
  }
}
