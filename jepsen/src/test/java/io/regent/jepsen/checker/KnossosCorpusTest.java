package io.regent.jepsen.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.history.EdnReader;
import io.regent.jepsen.history.History;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Runs the checker over the outside corpus in {@code ../shared/knossos-corpus/} (histories from
 * Knossos's own test data; the files stay there, they are not copied into the repo) and asserts that
 * it agrees with Knossos on every file: {@code good} → VALID, {@code bad} → INVALID. UNKNOWN (budget
 * spent) is reported and counted as a disagreement. Writes a per-file table to {@code
 * target/knossos-corpus-report.txt} and to the test's output. Without the corpus (a clean clone has none) the
 * test is reported as skipped, with the reason ({@link CorpusLocator#require}).
 */
class KnossosCorpusTest {
  /** Per-file budget; the whole corpus must finish well within a minute on 2 cores. */
  private static final Budget PER_FILE = new Budget(Duration.ofSeconds(10), 3_000_000);

  @Test
  void agreesWithKnossosOnEveryCorpusFile() throws IOException {
    Path corpus = CorpusLocator.require("the checker's agreement with Knossos on its own histories");
    List<Path> files;
    try (Stream<Path> s = Files.walk(corpus)) {
      files = s.filter(p -> p.toString().endsWith(".edn")).sorted().toList();
    }
    assertThat(files).as("EDN files in " + corpus).isNotEmpty();
    List<String> rows = new ArrayList<>();
    List<String> disagreements = new ArrayList<>();
    long totalStart = System.nanoTime();
    for (Path f : files) {
      Path rel = corpus.relativize(f);
      String model = rel.getName(0).toString();
      boolean good = rel.getName(1).toString().equals("good");
      Verdict expected = good ? Verdict.VALID : Verdict.INVALID;
      History h = EdnReader.readHistory(f);
      Model m = model.equals("mutex") ? Mutex.initial() : CasRegister.initial();
      Result r = new LinearizabilityChecker(m, PER_FILE).check(h);
      boolean agree = r.verdict() == expected;
      String row = String.format("%-48s %-7s expected %-7s got %-7s %6d ms %9d configs %5d ops%s",
          rel, model, expected, r.verdict(), r.elapsed().toMillis(), r.configurations(),
          r.opCount(), agree ? "" : "   <-- DISAGREES: " + r.explanation());
      rows.add(row);
      if (!agree) {
        disagreements.add(row);
      }
    }
    long totalMs = (System.nanoTime() - totalStart) / 1_000_000;
    rows.add(String.format("%d files, %d agree, %d disagree, %d ms total", files.size(),
        files.size() - disagreements.size(), disagreements.size(), totalMs));
    String report = String.join("\n", rows) + "\n";
    System.out.print(report);
    Path out = Path.of("target", "knossos-corpus-report.txt");
    Files.createDirectories(out.getParent());
    Files.writeString(out, report, StandardCharsets.UTF_8);
    assertThat(disagreements).as("files where the checker disagrees with Knossos").isEmpty();
  }
}
