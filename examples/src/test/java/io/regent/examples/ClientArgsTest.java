package io.regent.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The examples' command line: positional arguments after the endpoints, an example's own options, bad input. */
class ClientArgsTest {
  @Test
  void anExamplesOptionsGoAnywhereOnTheLineAndTheRestIsPositional() {
    ClientArgs a = ClientArgs.parse(new String[] {"h:1", "orders", "--members", "2", "a", "10"}, "--members",
        "--partitions");
    assertThat(a.arg(0, "-")).isEqualTo("orders");
    assertThat(a.arg(1, "-")).isEqualTo("a");
    assertThat(a.arg(2, "-")).isEqualTo("10");
    assertThat(a.arg(3, "none")).isEqualTo("none");
    assertThat(a.option("--members", "1")).isEqualTo("2");
    assertThat(a.option("--partitions", "4")).isEqualTo("4");
  }

  @Test
  void anOptionTheExampleDoesNotNameOrOneWithoutItsValueIsRefused() {
    assertThatThrownBy(() -> ClientArgs.parse(new String[] {"h:1", "--members", "2"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("unknown option --members");
    assertThatThrownBy(() -> ClientArgs.parse(new String[] {"h:1", "--members"}, "--members"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("--members needs a value");
  }
}
