package io.regent.jepsen.checker;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the outside Knossos corpus, {@code shared/knossos-corpus} beside the project root (so {@code
 * ../shared/knossos-corpus} from the repository, {@code ../../shared/knossos-corpus} from this module),
 * by walking up from {@code user.dir}; the system property {@code knossos.corpus} overrides.
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
}
