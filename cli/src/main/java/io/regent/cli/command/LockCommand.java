package io.regent.cli.command;

import io.regent.cli.holder.Candidacy;
import io.regent.cli.holder.Identity;
import io.regent.cli.holder.SuspendOptions;
import io.regent.cli.output.Format;
import io.regent.cli.settings.DurationConverter;
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

/** {@code regent lock NAME -- CMD ARGS...}: run a command while holding a lock. */
@Command(name = "lock", mixinStandardHelpOptions = true,
    description = {"Runs CMD while holding the lock NAME; without CMD, holds it until SIGINT/SIGTERM.",
        "Waits for the lock (a name whose value is this process's identity, host:pid), prints 'locked NAME "
            + "OWNER token=T lease=L', then runs CMD with $REGENT_FENCING_TOKEN, $REGENT_LEASE_ID, $REGENT_NAME "
            + "and $REGENT_FENCING_TOKEN_FILE in its environment. When CMD exits, releases the lock and exits with "
            + "CMD's status. When the lock is lost (prints 'lost NAME: reason' on stderr, exit 1), CMD and what it "
            + "started get SIGKILL at once (no handler may run); on SIGINT/SIGTERM (exit 0), CMD gets SIGTERM, "
            + "then SIGKILL after 2 s or a third of the TTL, whichever is shorter.",
        "When the lease goes 2/3 of its TTL without an acknowledged keepalive (a paused process, a Raft leader "
            + "failover), the holder is suspended: it prints 'suspended NAME: reason' on stderr, freezes CMD and "
            + "all it started (SIGSTOP) and goes on renewing. A renewal in time proves the lease held all along: "
            + "CMD is thawed (SIGCONT) and 'resumed NAME token=T lease=L' printed, same token. The lock is lost "
            + "when the cluster says the lease ended, or after the TTL and --grace without a renewal. "
            + "--no-suspend: lost at 2/3 TTL instead (docs/architecture.md §3.6).",
        "Without CMD (etcdctl lock NAME), prints the 'locked' line and holds the lock until SIGINT/SIGTERM "
            + "(releases it, exit 0) or until it is lost (exit 1).",
        "Example: regent lock backups --ttl 30s -- ./backup.sh"})
public final class LockCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "NAME", converter = NameArgument.class, description = "lock name")
  String name;

  @Parameters(index = "1..*", arity = "0..*", paramLabel = "CMD",
      description = "the command to run, after --; none to hold the lock until signalled")
  List<String> command = List.of();

  @Mixin
  WaitOptions wait;

  @Mixin
  SuspendOptions suspension;

  @Option(names = "--ttl", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
      description = "lease TTL, e.g. 3s (default: ${DEFAULT-VALUE})")
  Duration ttl;

  @Option(names = "--lock-delay", paramLabel = "DURATION", defaultValue = "0s", converter = DurationConverter.class,
      description = "should this holder's lease expire (not on a clean release), nobody gets the lock for this "
          + "long: protection for resources that cannot check fencing tokens, at the price of that much "
          + "unavailability (default: ${DEFAULT-VALUE})")
  Duration lockDelay;

  @Override
  public Integer call() throws Exception {
    if (wait.timeout() != null && wait.timeout().isZero()) {
      throw new ParameterException(spec.commandLine(), "--timeout needs a positive DURATION");
    }
    if (ttl.isZero()) {
      throw new ParameterException(spec.commandLine(), "--ttl needs a positive DURATION (the lock's lease TTL)");
    }
    if (suspension.conflict() != null) {
      throw new ParameterException(spec.commandLine(), suspension.conflict());
    }
    String owner = Identity.self();
    Candidacy.Run run = new Candidacy.Run(name, owner, ttl, lockDelay.toMillis(), command, null,
        k -> client.json() ? Format.leaderKey(k, true) : "locked " + Format.leaderKey(k, false), suspension);
    try (RegentClient c = client.connect()) {
      return Candidacy.run(c, run, wait.timeout(), false, spec.commandLine().getOut(), spec.commandLine().getErr());
    }
  }
}
