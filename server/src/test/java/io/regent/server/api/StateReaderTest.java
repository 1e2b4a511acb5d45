package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.regent.server.confirm.Confirmer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/** A local read on a saturated node fails its call with RESOURCE_EXHAUSTED instead of throwing at the caller. */
class StateReaderTest {
  @Test
  void aSerializableReadOnAFullBlockingPoolIsResourceExhausted() {
    StateReader reader = new StateReader(new Confirmer(e -> new CompletableFuture<>()), null, task -> {
      throw new RejectedExecutionException("full");
    });
    CompletableFuture<Object> read = reader.read(true, txn -> "never");
    assertThat(read).isCompletedExceptionally();
    Throwable cause = read.handle((v, e) -> e).join();
    assertThat(StatusCodes.toStatus(cause).getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    CompletableFuture<?> holder = reader.holder(true, "jobs");
    assertThat(holder).isCompletedExceptionally();
  }
}
