package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;

/** A name that enters the state shows as what it is (docs/api.md "Names"). */
class NewNameTest {
  private static void refused(String name, String why) {
    assertThatThrownBy(() -> Validation.newName(name)).isInstanceOf(StatusRuntimeException.class)
        .satisfies(e -> assertThat(((StatusRuntimeException) e).getStatus().getCode())
            .isEqualTo(Status.Code.INVALID_ARGUMENT))
        .hasMessageContaining(why);
  }

  @Test
  void controlBidiAndReplacementCharactersAreRefusedNamingTheCharacter() {
    refused("jobs\nfake line", "U+000A, a control character, at character 4");
    refused("a\u0000b", "U+0000");
    refused("a\u0085b", "U+0085, a control character");
    refused("invoice-\u202Efdp.exe", "U+202E, a bidirectional control");
    refused("x-\uFFFD\uFFFD", "U+FFFD, the replacement character");
  }

  @Test
  void ordinaryUnicodeNamesPass() {
    assertThat(Validation.newName("jobs/été/🦀‍🔥")).isEqualTo("jobs/été/🦀‍🔥");
    assertThat(Validation.newName("{tenant}/shard-7")).isEqualTo("{tenant}/shard-7");
  }
}
