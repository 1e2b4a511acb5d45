package io.regent.cli.holder;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.cli.output.ExitCodes;
import io.regent.client.RegentClient;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code elect --fresh-token-every DURATION}: every period, takes a new, larger fencing token (a FreshToken
 * log entry; the name stays held) and writes it to the token file, for ledgers in strict mode. A refusal
 * (the name is held no more) ends the holding as lost; a failure without quorum is retried next period.
 */
final class TokenRefresher implements AutoCloseable {
  private final ScheduledExecutorService timer;

  private TokenRefresher(ScheduledExecutorService timer) {
    this.timer = timer;
  }

  /** Starts refreshing every {@code every}; with {@code every == null}, does nothing. */
  static TokenRefresher start(RegentClient c, NameHolder holder, TokenFile file, Duration every) {
    if (every == null) {
      return new TokenRefresher(null);
    }
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "regent-fresh-token");
      t.setDaemon(true);
      return t;
    });
    long ms = every.toMillis();
    timer.scheduleWithFixedDelay(() -> refresh(c, holder, file), ms, ms, TimeUnit.MILLISECONDS);
    return new TokenRefresher(timer);
  }

  private static void refresh(RegentClient c, NameHolder holder, TokenFile file) {
    try {
      file.write(holder.freshToken(c).getToken());
    } catch (StatusRuntimeException e) {
      Status.Code code = e.getStatus().getCode();
      if (code == Status.Code.FAILED_PRECONDITION || code == Status.Code.NOT_FOUND) {
        holder.lose("no fresh token: " + ExitCodes.message(e));
      }
    } catch (IOException e) {
      holder.lose("cannot write the fencing token file: " + e.getMessage());
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (timer != null) {
      timer.shutdownNow();
      timer.awaitTermination(RegentClient.CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }
  }
}
