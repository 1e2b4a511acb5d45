package io.regent.server.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** JSON text of the console: valid, ordered, and no user-given character can close a markup or script context. */
class ConsoleJsonTest {
  @Test
  void stringsAreEscapedAndReadBackUnchanged() {
    String nasty = "a\"b\\c\n\t</script><img src=x onerror=1>&\u2028\u0001é";
    String json = ConsoleJson.of(ConsoleState.obj("name", nasty, "n", 3L, "ok", true, "none", null,
        "list", List.of(1, 2.5, "x")));
    assertThat(json).doesNotContain("<", ">", "&", "\u2028", "\n").startsWith("{\"name\":");
    assertThat(JsonParser.parseString(json).getAsJsonObject().get("name").getAsString()).isEqualTo(nasty);
    assertThat(json).endsWith(",\"n\":3,\"ok\":true,\"none\":null,\"list\":[1,2.5,\"x\"]}");
    assertThat(ConsoleJson.of(Double.NaN)).isEqualTo("null");
    assertThatThrownBy(() -> ConsoleJson.of(new Object())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void valuesAreTextWhenUtf8ElseHexAndCutAt256Bytes() {
    assertThat(ConsoleState.value(ByteString.copyFromUtf8("host-a:8080"))).isEqualTo("host-a:8080");
    assertThat(ConsoleState.value(ByteString.copyFrom(new byte[] {(byte) 0xff, 0x01}))).isEqualTo("0xff01");
    byte[] big = new byte[300];
    Arrays.fill(big, (byte) 'a');
    assertThat(ConsoleState.value(ByteString.copyFrom(big))).hasSize(257).endsWith("a…");
  }
}
