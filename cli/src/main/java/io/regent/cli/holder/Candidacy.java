package io.regent.cli.holder;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.NotAcquiredException;
import io.regent.client.LeaseKeeper;
import io.regent.client.RegentClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/** What {@code elect} and {@code lock} do once their options are checked: campaign, hold, release. */
public final class Candidacy {
  /**
   * One run.
   *
   * @param name the election or lock name
   * @param value the value published while holding it (a lock's owner identity)
   * @param command the --exec command to run as holder; empty to hold until signalled or lost
   * @param freshTokenEvery with a command: how often to take a fresh token; null for never
   * @param grantLine the line printed once elected
   * @param suspension whether and how long the holder is suspended before the name is lost
   */
  public record Run(String name, String value, Duration ttl, long lockDelayMs, List<String> command,
             Duration freshTokenEvery, Function<LeaderKey, String> grantLine, SuspendOptions suspension) {
  }

  private Candidacy() {
  }

  /**
   * Campaigns, prints the grant, then holds: until SIGINT/SIGTERM (exit 0), until the name is lost (exit 1,
   * after one {@code lost NAME: reason} line on stderr) or, with a command, until it exits (then its
   * status). A command still running when the holding ends is stopped: on a loss with SIGKILL at once, on a
   * signal with SIGTERM, then SIGKILL. While the lease is in doubt the holder is suspended (the command frozen;
   * see {@link NameHolder}). Waits at most {@code timeout} (null: no limit) to be granted the name, or not at
   * all with {@code noWait}.
   *
   * @throws NotAcquiredException when not granted in time (exit 3); the lease is revoked
   */
  public static int run(RegentClient c, Run run, Duration timeout, boolean noWait, PrintWriter out, PrintWriter err)
      throws Exception {
    return run(c, run, timeout, noWait, LeaseKeeper.options(), out, err);
  }

  /** Like {@link #run(RegentClient, Run, Duration, boolean, PrintWriter, PrintWriter)} with the keeper's options. */
  static int run(RegentClient c, Run run, Duration timeout, boolean noWait, LeaseKeeper.Options keeperOptions,
                 PrintWriter out, PrintWriter err) throws Exception {
    NameHolder holder = new NameHolder(run.name(), run.suspension(), keeperOptions, err);
    try {
      LeaderKey key = holder.campaign(c, run.ttl().toMillis(), ByteString.copyFromUtf8(run.value()),
          run.lockDelayMs(), timeout, noWait);
      int code = ExitCodes.OK;
      if (key != null && holder.announce(() -> {
        out.println(run.grantLine().apply(key));
        out.flush();
      })) {
        code = run.command().isEmpty() ? awaitEnd(holder) : execute(c, holder, key, run);
      }
      return holder.how() == NameHolder.End.LOST ? ExitCodes.ERROR : code;
    } finally {
      holder.release(c);
    }
  }

  private static int awaitEnd(NameHolder holder) throws InterruptedException {
    holder.await();
    return ExitCodes.OK;
  }

  /** Runs the command as holder; its status when it ends by itself, else it is stopped. */
  private static int execute(RegentClient c, NameHolder holder, LeaderKey key, Run run) throws Exception {
    try (TokenFile file = TokenFile.create(key.getToken());
         TokenRefresher refresher = TokenRefresher.start(c, holder, file, run.freshTokenEvery())) {
      ExecChild child = holder.startChild(
          () -> ExecChild.start(run.command(), key, file, () -> holder.end(NameHolder.End.FINISHED)));
      if (child == null) {
        return ExitCodes.OK; // the holding ended before the command could start
      }
      NameHolder.End end = holder.await();
      if (end == NameHolder.End.FINISHED) {
        return child.await();
      }
      refresher.close();
      if (end == NameHolder.End.LOST) {
        child.kill(); // not one more instruction as holder: no SIGTERM handler may run
      } else {
        // asked to stop: the holder still renews, but a command that takes long must not outlast the margin
        child.stop(Math.min(ExecChild.GRACE_MS, run.ttl().toMillis() / 3));
      }
      return ExitCodes.OK;
    }
  }
}
