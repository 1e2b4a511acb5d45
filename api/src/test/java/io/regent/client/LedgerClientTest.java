package io.regent.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.regent.fencing.FencingMode;
import io.regent.fencing.StaleTokenException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class LedgerClientTest {
  @ParameterizedTest
  @EnumSource(FencingMode.class)
  void theLedgersRejectionBecomesATypedExceptionNamingTauAndH(FencingMode mode) {
    String sent = new StaleTokenException("it's 'zlog'", 7, 41, mode).getMessage();

    StaleTokenException got = LedgerClient.stale("it's 'zlog'", 7,
        Status.FAILED_PRECONDITION.withDescription(sent).asRuntimeException()).orElseThrow();

    assertThat(got.token()).isEqualTo(7);
    assertThat(got.highest()).isEqualTo(41);
    assertThat(got.mode()).isEqualTo(mode);
    assertThat(got.key()).isEqualTo("it's 'zlog'");
    assertThat(got.getMessage()).isEqualTo(sent);
  }

  @Test
  void otherFailuresStayStatusErrors() {
    assertThat(LedgerClient.stale("k", 7, Status.UNAVAILABLE.withDescription("highest admitted is 3 (strict mode")
        .asRuntimeException())).isEmpty();
    assertThat(LedgerClient.stale("k", 7, Status.FAILED_PRECONDITION.withDescription("something else")
        .asRuntimeException())).isEmpty();
    assertThat(LedgerClient.stale("k", 7, Status.FAILED_PRECONDITION.asRuntimeException())).isEmpty();
  }
}
