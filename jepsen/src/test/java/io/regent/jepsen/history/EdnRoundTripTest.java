package io.regent.jepsen.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.checker.CorpusLocator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EdnRoundTripTest {

  @Test
  void writesOneOpPerLineInAVectorAndReadsBackEqualOps(@TempDir Path dir) throws IOException {
    List<Op> ops = List.of(
        Op.invoke(0, "cas", List.of(1L, 2L)).withTime(5L),
        Op.invoke(1, "read", null).withKey("name-a"),
        Op.ok(0, "cas", List.of(1L, 2L)).withTime(9L),
        Op.info(Op.NEMESIS, "partition", Map.of(Keyword.of("isolated"), Set.of("n1"))),
        Op.ok(1, "read", "str \"quoted\"\n").withKey("name-a"),
        new Op(2, Op.Type.INVOKE, Keyword.of("write"), Arrays.asList(null, -3L, true, 'c', 2.5),
            null, null, Map.of(Keyword.of("error"), new Symbol("java.io.IOException"))),
        Op.fail(2, "write", Arrays.asList(null, -3L, true, 'c', 2.5)));
    History h = new History(ops);
    Path file = dir.resolve("history.edn");
    EdnWriter.write(h, file);
    List<String> lines = Files.readAllLines(file);
    assertThat(lines).hasSize(ops.size());
    assertThat(lines.get(0)).isEqualTo("[{:process 0, :type :invoke, :f :cas, :value [1 2], :time 5}");
    assertThat(lines.get(3)).startsWith(" {:process :nemesis, :type :info, :f :partition");
    assertThat(lines.get(ops.size() - 1)).endsWith("}]");
    assertThat(EdnReader.readHistory(file).ops()).isEqualTo(ops);
  }

  @Test
  void emptyHistoryRoundTrips() {
    assertThat(EdnWriter.toString(List.of())).isEqualTo("[]\n");
    assertThat(EdnReader.readOps("[]")).isEmpty();
  }

  @Test
  void everyCorpusFileRoundTrips() throws IOException {
    Path corpus = CorpusLocator.require("the EDN round trip of every Knossos corpus history");
    List<Path> files;
    try (Stream<Path> s = Files.walk(corpus)) {
      files = s.filter(p -> p.toString().endsWith(".edn")).toList();
    }
    assertThat(files).as("EDN files in " + corpus).isNotEmpty(); // an empty corpus must not pass as checked
    for (Path f : files) {
      List<Op> ops = EdnReader.readHistory(f).ops();
      assertThat(EdnReader.readOps(EdnWriter.toString(ops))).as(f.toString()).isEqualTo(ops);
    }
  }
}
