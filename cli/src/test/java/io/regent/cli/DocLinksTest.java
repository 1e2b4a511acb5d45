package io.regent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The docs' cross-references resolve. Every relative link of README.md and docs/*.md ({@code [text](path)},
 * {@code path#anchor}, images too) names a file that exists and, with an anchor, a heading of that file (by
 * GitHub's anchor rule). Every section citation in the repository's code and docs ({@code docs/architecture.md
 * §8.1}, {@code §3.6, "Clock bounds", and §8.1}) names a heading numbered so in the doc it cites: the nearest
 * doc named before the {@code §} in the same sentence, else, in a doc, that doc itself; a {@code §} after an
 * outside source (Raft, its thesis, an RFC) is not ours to check, nor is a bare {@code §} in code. Runs with
 * cli/ as the working directory, so the repository root is {@code ..}.
 */
class DocLinksTest {
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
  private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern NUMBER = Pattern.compile("^(\\d+[a-z]?(?:\\.\\d+)*)\\.?\\s");
  private static final Pattern SECTION = Pattern.compile("§\\s?(\\d+[a-z]?(?:\\.\\d+)*)");
  /** What a § may cite: one of our docs (group 1), or an outside source (group 2). */
  private static final Pattern SOURCE = Pattern.compile(
      "((?:[\\w.-]+/)*[A-Za-z][\\w-]*\\.md)|\\b(Raft|thesis|RFC|paper|Chubby|Knossos)\\b");
  /** How far before a § its source may be named, in characters (a citation wrapped over two lines included). */
  private static final int LOOKBACK = 160;
  private static final Set<String> SKIPPED_DIRS = Set.of(".git", "target", "node_modules");
  private static final Pattern CITING_FILE = Pattern.compile(
      ".*\\.(java|md|proto|ts|js|py|sh|xml|yml|yaml|clj|html)$");

  private final Map<Path, Headings> headings = new HashMap<>();

  @Test
  void everyRelativeLinkOfTheDocsResolves() throws IOException {
    List<String> broken = new ArrayList<>();
    for (Path doc : docs()) {
      broken.addAll(brokenLinks(doc, Files.readString(doc, StandardCharsets.UTF_8)));
    }
    assertThat(broken).as("relative links whose file or heading does not exist").isEmpty();
  }

  @Test
  void everySectionCitationNamesANumberedHeading() throws IOException {
    List<String> broken = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> s = Files.walk(ROOT)) {
      files = s.filter(p -> !skipped(p) && Files.isRegularFile(p)
          && CITING_FILE.matcher(p.getFileName().toString()).matches()).sorted().toList();
    }
    for (Path f : files) {
      broken.addAll(brokenCitations(f, Files.readString(f, StandardCharsets.UTF_8)));
    }
    assertThat(broken).as("section citations with no heading numbered so").isEmpty();
  }

  /** Negative control: a missing file, a missing anchor and a missing section are each reported. */
  @Test
  void aBrokenLinkAnchorOrCitationIsReported() {
    Path readme = ROOT.resolve("README.md");
    assertThat(brokenLinks(readme, "see [x](docs/no-such.md) and [y](docs/architecture.md#no-such-heading)"))
        .hasSize(2);
    assertThat(brokenLinks(readme, "see [x](docs/architecture.md#1-modules) and `[y](nowhere.md)` in code"))
        .isEmpty();
    // the made-up numbers are concatenated so that this file's own scan does not find them
    Path code = ROOT.resolve("cli/src/main/java/X.java");
    assertThat(brokenCitations(code, "// docs/architecture.md §8.1 and §" + "99.9; Raft thesis §6.4")).hasSize(1)
        .allSatisfy(line -> assertThat(line).contains("99.9"));
    assertThat(brokenCitations(readme, "as §" + "99 says")).hasSize(1);
  }

  /** README.md and docs/*.md. */
  static List<Path> docs() throws IOException {
    List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    return docs;
  }

  /** The links of {@code doc} (its text {@code text}) whose file or anchor does not exist, one line each. */
  List<String> brokenLinks(Path doc, String text) {
    List<String> broken = new ArrayList<>();
    String prose = text.replaceAll("(?s)```.*?```", "").replaceAll("`[^`\n]*`", "");
    Matcher m = LINK.matcher(prose);
    while (m.find()) {
      String target = m.group(1);
      if (SCHEME.matcher(target).find()) {
        continue; // https:, mailto: ...: not a file of this repository
      }
      int hash = target.indexOf('#');
      String file = hash < 0 ? target : target.substring(0, hash);
      Path resolved = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
      if (!Files.exists(resolved)) {
        broken.add(ROOT.relativize(doc) + ": " + target + " (no such file)");
      } else if (hash >= 0 && resolved.toString().endsWith(".md")
          && !headingsOf(resolved).anchors().contains(target.substring(hash + 1))) {
        broken.add(ROOT.relativize(doc) + ": " + target + " (no such heading)");
      }
    }
    return broken;
  }

  /** The § citations of {@code file} (its text {@code text}) with no heading numbered so, one line each. */
  List<String> brokenCitations(Path file, String text) {
    List<String> broken = new ArrayList<>();
    boolean isDoc = file.toString().endsWith(".md");
    Matcher m = SECTION.matcher(text);
    while (m.find()) {
      Path cited = citedDoc(file, text, m.start(), isDoc);
      if (cited == null) {
        continue;
      }
      String where = ROOT.relativize(file) + ":" + lineOf(text, m.start());
      if (!Files.isRegularFile(cited)) {
        broken.add(where + ": " + ROOT.relativize(cited) + " (no such doc) §" + m.group(1));
      } else if (!headingsOf(cited).numbers().contains(m.group(1))) {
        broken.add(where + ": " + ROOT.relativize(cited) + " has no section §" + m.group(1));
      }
    }
    return broken;
  }

  /** The doc a § at {@code at} cites, or null when it is not one of ours (or unnamed, in code). */
  private static Path citedDoc(Path file, String text, int at, boolean isDoc) {
    String before = text.substring(Math.max(0, at - LOOKBACK), at);
    int sentence = Math.max(before.lastIndexOf(". "), Math.max(before.lastIndexOf(".\n"), before.lastIndexOf("\n\n")));
    Matcher s = SOURCE.matcher(before.substring(sentence + 1));
    MatchResult last = null;
    while (s.find()) {
      last = new MatchResult(s.group(1), s.group(2) != null);
    }
    if (last == null) {
      return isDoc ? file : null;
    }
    if (last.outside()) {
      return null;
    }
    String doc = last.doc();
    List<Path> candidates = doc.contains("/")
        ? List.of(ROOT.resolve(doc), file.getParent().resolve(doc))
        : List.of(file.getParent().resolve(doc), ROOT.resolve("docs").resolve(doc));
    return candidates.stream().map(Path::normalize).filter(Files::isRegularFile).findFirst()
        .orElse(candidates.get(0).normalize());
  }

  private record MatchResult(String doc, boolean outside) {
  }

  private Headings headingsOf(Path doc) {
    return headings.computeIfAbsent(doc, DocLinksTest::readHeadings);
  }

  /** A doc's heading anchors (GitHub's rule) and section numbers ("7.1" of "### 7.1 Where ..."). */
  private record Headings(Set<String> anchors, Set<String> numbers) {
  }

  private static Headings readHeadings(Path doc) {
    Set<String> anchors = new HashSet<>();
    Set<String> numbers = new HashSet<>();
    boolean fenced = false;
    try {
      for (String line : Files.readAllLines(doc, StandardCharsets.UTF_8)) {
        if (line.startsWith("```")) {
          fenced = !fenced;
          continue;
        }
        Matcher h = HEADING.matcher(line);
        if (fenced || !h.matches()) {
          continue;
        }
        anchors.add(anchor(h.group(1)));
        Matcher n = NUMBER.matcher(h.group(1));
        if (n.find()) {
          numbers.add(n.group(1));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Headings(anchors, numbers);
  }

  /** GitHub's anchor of a heading: link text only, lower case, punctuation dropped, each space a hyphen. */
  static String anchor(String heading) {
    String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT);
    StringBuilder b = new StringBuilder();
    for (char c : text.toCharArray()) {
      if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
        b.append(c);
      } else if (c == ' ') {
        b.append('-');
      }
    }
    return b.toString();
  }

  private static boolean skipped(Path p) {
    for (Path part : ROOT.relativize(p)) {
      if (SKIPPED_DIRS.contains(part.toString())) {
        return true;
      }
    }
    return false;
  }

  private static int lineOf(String text, int at) {
    int line = 1;
    for (int i = 0; i < at; i++) {
      if (text.charAt(i) == '\n') {
        line++;
      }
    }
    return line;
  }
}
