package io.regent.jepsen.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EdnReaderTest {

  @Test
  void readsScalars() {
    assertThat(EdnParser.read("nil")).isNull();
    assertThat(EdnParser.read("42")).isEqualTo(42L);
    assertThat(EdnParser.read("-7")).isEqualTo(-7L);
    assertThat(EdnParser.read("+3")).isEqualTo(3L);
    assertThat(EdnParser.read("12N")).isEqualTo(12L);
    assertThat(EdnParser.read("123456789012345678901234567890"))
        .isEqualTo(new BigInteger("123456789012345678901234567890"));
    assertThat(EdnParser.read("1.5")).isEqualTo(1.5);
    assertThat(EdnParser.read("true")).isEqualTo(true);
    assertThat(EdnParser.read(":cas")).isEqualTo(Keyword.of("cas"));
    assertThat(EdnParser.read(":jepsen/nemesis")).isEqualTo(new Keyword("jepsen/nemesis"));
    assertThat(EdnParser.read("\"a \\\"q\\\" \\n\\u0041\"")).isEqualTo("a \"q\" \nA");
    assertThat(EdnParser.read("\\a")).isEqualTo('a');
    assertThat(EdnParser.read("\\newline")).isEqualTo('\n');
    assertThat(EdnParser.read("java.net.SocketTimeoutException"))
        .isEqualTo(new Symbol("java.net.SocketTimeoutException"));
  }

  @Test
  void readsCollectionsCommasCommentsDiscardsAndTags() {
    Object v = EdnParser.read("; leading comment\n"
        + "{:a [1, 2 ,3], :b (4 5) ; trailing comment\n :c #{:x} #_ :ignored :d #inst \"2024\"}");
    assertThat(v).isEqualTo(Map.of(Keyword.of("a"), List.of(1L, 2L, 3L),
        Keyword.of("b"), List.of(4L, 5L), Keyword.of("c"), Set.of(Keyword.of("x")),
        Keyword.of("d"), "2024"));
    assertThat(EdnParser.read("[nil [nil]]")).isEqualTo(java.util.Arrays.asList(null,
        java.util.Collections.singletonList(null)));
  }

  @Test
  void readsATopLevelVectorOfOps() {
    List<Op> ops = EdnReader.readOps("[{:process 0, :type :invoke, :f :cas, :value [1 2]}\n"
        + " {:process 0, :type :ok, :f :cas, :value [1 2], :time 17}\n"
        + " {:process :nemesis, :type :info, :f :kill, :value nil}]");
    assertThat(ops).containsExactly(
        Op.invoke(0, "cas", List.of(1L, 2L)),
        Op.ok(0, "cas", List.of(1L, 2L)).withTime(17L),
        Op.info(Op.NEMESIS, "kill", null));
    assertThat(ops.get(2).isNemesis()).isTrue();
  }

  @Test
  void readsABareSequenceOfMapsAndAListInAnyKeyOrderKeepingExtras() {
    String seq = "{:type :invoke, :f :write, :value 3, :process 1 :key \"k\"}\n"
        + "{:type :fail, :f :write, :value 3, :process 1, :error [:timeout nil], :index 1}";
    List<Op> ops = EdnReader.readOps(seq);
    assertThat(ops).hasSize(2);
    assertThat(ops.get(0).key()).isEqualTo("k");
    assertThat(ops.get(1).type()).isEqualTo(Op.Type.FAIL);
    assertThat(ops.get(1).extra()).containsEntry(Keyword.of("error"),
        java.util.Arrays.asList(Keyword.of("timeout"), null)).containsEntry(Keyword.of("index"), 1L);
    assertThat(EdnReader.readOps("(" + seq + ")")).isEqualTo(ops);
  }

  @Test
  void reportsMalformedInputWithAPosition() {
    assertThatThrownBy(() -> EdnParser.read("[1 2\n 3"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 2");
    assertThatThrownBy(() -> EdnParser.read("{:a}")).hasMessageContaining("odd number");
    assertThatThrownBy(() -> EdnParser.read("\"open")).hasMessageContaining("unterminated string");
    assertThatThrownBy(() -> EdnParser.read("]")).hasMessageContaining("unexpected");
    assertThatThrownBy(() -> EdnReader.readOps("[{:process 0, :type :invoke}]"))
        .hasMessageContaining("lacks");
    assertThatThrownBy(() -> EdnReader.readOps("[{:process 0, :type :done, :f :read}]"))
        .hasMessageContaining("unknown op type");
    assertThatThrownBy(() -> EdnReader.readOps("[1 2]")).hasMessageContaining("not a map");
  }
}
