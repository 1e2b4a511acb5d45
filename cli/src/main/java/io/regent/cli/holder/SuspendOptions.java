package io.regent.cli.holder;

import io.regent.cli.settings.DurationConverter;
import io.regent.client.LeaseKeeper;
import java.time.Duration;
import java.util.function.Consumer;
import picocli.CommandLine.Option;

/**
 * {@code --grace} and {@code --no-suspend} of {@code elect}, {@code lock} and {@code group join}: whether a holder
 * (or a member, which then stops acting on every partition) whose lease can
 * no longer be vouched for (2/3 TTL without an acknowledged keepalive) is suspended — it stops acting, its
 * command is frozen with SIGSTOP, and it goes on renewing — rather than stepped down at once
 * (docs/architecture.md §3.6). A renewal in time resumes it with the same lease and token; it is lost on
 * NOT_FOUND or once a TTL and the grace have passed since its last acknowledged keepalive was sent.
 */
public final class SuspendOptions {
  @Option(names = "--grace", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "how long a suspended holder goes on renewing once a full TTL has passed since its last "
          + "acknowledged keepalive was sent, before it gives the name up as lost (default: the TTL, at least 10s)")
  Duration grace;

  @Option(names = "--no-suspend", description = "never suspend: give the name up as lost as soon as the lease has "
      + "gone 2/3 of its TTL without an acknowledged keepalive (with a short TTL, a Raft leader failover can take "
      + "that long)")
  boolean noSuspend;

  /** Whether either option was given (for commands that take neither, such as {@code elect --listen}). */
  public boolean given() {
    return grace != null || noSuspend;
  }

  /**
   * The usage error for contradicting options, or null. (A negative grace cannot be written: a DURATION is
   * never negative.)
   */
  public String conflict() {
    return grace != null && noSuspend ? "--grace needs suspension (not --no-suspend)" : null;
  }

  /**
   * Configures {@code keeper} (returned) to suspend, telling {@code onSuspend} why and {@code onResume} when,
   * unless {@code --no-suspend} was given.
   */
  public LeaseKeeper.Options apply(LeaseKeeper.Options keeper, Consumer<String> onSuspend, Runnable onResume) {
    if (noSuspend) {
      return keeper;
    }
    keeper.suspendWhenInDoubt(onSuspend, onResume);
    if (grace != null) {
      keeper.grace(grace.toMillis());
    }
    return keeper;
  }
}
