package io.regent.cli.command;

import io.regent.cli.holder.Candidacy;
import io.regent.cli.holder.ElectAll;
import io.regent.cli.holder.SuspendOptions;
import io.regent.cli.output.Format;
import io.regent.cli.settings.DurationConverter;
import io.regent.client.LeaseKeeper;
import io.regent.client.RegentClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code regent elect NAME VALUE [--exec -- CMD ARGS...]}: campaign, print the grant, hold it until signalled or lost. */
@Command(name = "elect", mixinStandardHelpOptions = true,
    description = {"Campaigns for NAME and holds the leadership until interrupted.",
        "Campaigns for NAME with VALUE on a kept-alive lease and blocks until elected; then prints the "
        + "grant (elected NAME VALUE token=T lease=L) and holds it until SIGINT/SIGTERM (resigns, exit 0) or "
        + "until its lease is lost (prints 'lost NAME: reason' on stderr, exit 1; see suspension below).",
        "The token is the fencing token: attach it to every write at the protected resource.",
        "--exec -- CMD ARGS...: runs CMD while leader, with $REGENT_FENCING_TOKEN, $REGENT_LEASE_ID, $REGENT_NAME "
            + "and $REGENT_FENCING_TOKEN_FILE (a file that always holds the newest token) in its environment. "
            + "When leadership is lost, CMD and what it started get SIGKILL at once (no handler may run); on "
            + "SIGINT/SIGTERM, CMD gets SIGTERM, then SIGKILL after 2 s or a third of the TTL if shorter; when CMD "
            + "exits by itself, elect resigns and exits with CMD's status.",
        "When the lease goes 2/3 of its TTL without an acknowledged keepalive (a paused process, a Raft leader "
            + "failover), the leader is suspended: it prints 'suspended NAME: reason' on stderr, freezes CMD and "
            + "all it started (SIGSTOP) and goes on renewing. A renewal in time proves the lease held all along: "
            + "CMD is thawed (SIGCONT) and 'resumed NAME token=T lease=L' printed, same token. Leadership is lost "
            + "when the cluster says the lease ended, or after the TTL and --grace without a renewal. "
            + "--no-suspend: lost at 2/3 TTL instead (docs/architecture.md §3.6).",
        "elect --listen NAME is observe NAME.",
        "elect --all a,b,c VALUE takes every name or none at once, all with one token (one grant line each); "
            + "it waits, as one candidate, while any of them is held."})
public final class ElectCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "NAME", converter = NameArgument.class, description = "election name")
  String name;

  @Parameters(index = "1", arity = "0..1", paramLabel = "VALUE", description = "value to publish (e.g. this node's address)")
  String value;

  @Parameters(index = "2..*", paramLabel = "CMD", description = "with --exec, after --: the command to run as leader")
  List<String> command = List.of();

  @Option(names = "--ttl", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
      description = "lease TTL, e.g. 3s (default: ${DEFAULT-VALUE})")
  Duration ttl;

  @Option(names = "--exec", description = "run the command given after -- while leader (see above)")
  boolean exec;

  @Option(names = "--fresh-token-every", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "with --exec: every DURATION, take a new, larger fencing token (FreshToken) and write it to "
          + "$REGENT_FENCING_TOKEN_FILE ($REGENT_FENCING_TOKEN keeps the first one); for a ledger in strict mode, "
          + "where each write needs a token above all earlier ones")
  Duration freshTokenEvery;

  @Option(names = "--listen", description = "observe NAME instead of campaigning")
  boolean listen;

  @Option(names = "--all", paramLabel = "NAMES", split = ",",
      description = "take all of these names or none, in one entry (then the only argument is VALUE)")
  List<String> all;

  @Mixin
  WaitOptions wait;

  @Mixin
  SuspendOptions suspension;

  @Option(names = "--no-wait", description = "ask once: if NAME is held, exit 3 naming its holder, queue nothing")
  boolean noWait;

  @Override
  public Integer call() throws Exception {
    if (listen) {
      if (value != null || exec || !command.isEmpty() || noWait || wait.timeout() != null || suspension.given()) {
        throw new ParameterException(spec.commandLine(), "--listen takes only NAME");
      }
      return ObserveCommand.observe(client, name, 0, spec.commandLine().getOut());
    }
    if (suspension.conflict() != null) {
      throw new ParameterException(spec.commandLine(), suspension.conflict());
    }
    if (all != null) {
      if (value != null || exec || listen || freshTokenEvery != null) {
        throw new ParameterException(spec.commandLine(), "--all takes NAMES and one VALUE (no --exec, --listen)");
      }
      try (RegentClient c = client.connect()) {
        return ElectAll.run(c, new ElectAll.Run(all, name, ttl.toMillis(), client.json(), suspension),
            LeaseKeeper.options(), spec.commandLine().getOut(), spec.commandLine().getErr());
      }
    }
    check();
    Candidacy.Run run = new Candidacy.Run(name, value, ttl, 0, command, freshTokenEvery,
        k -> Format.grant(k, client.json()), suspension);
    try (RegentClient c = client.connect()) {
      return Candidacy.run(c, run, wait.timeout(), noWait, spec.commandLine().getOut(), spec.commandLine().getErr());
    }
  }

  private void check() {
    if (value == null) {
      throw new ParameterException(spec.commandLine(), "missing VALUE (or use --listen NAME)");
    }
    if (exec && command.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--exec needs a command after --, e.g. --exec -- ./job.sh");
    }
    if (!exec && !command.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "unexpected argument '" + command.get(0) + "' (a command "
          + "to run as leader goes after --exec --)");
    }
    if (ttl.isZero()) {
      throw new ParameterException(spec.commandLine(), "--ttl needs a positive DURATION (the leader's lease TTL)");
    }
    if (wait.timeout() != null && (wait.timeout().isZero() || noWait)) {
      throw new ParameterException(spec.commandLine(), "--timeout needs a positive DURATION and no --no-wait");
    }
    if (freshTokenEvery != null && (!exec || freshTokenEvery.isZero())) {
      throw new ParameterException(spec.commandLine(), "--fresh-token-every needs --exec and a positive DURATION");
    }
  }
}
