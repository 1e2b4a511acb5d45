package io.regent.cli.command;

import io.regent.api.v1.LeaseInfo;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Format;
import io.regent.cli.output.Json;
import io.regent.cli.settings.DurationConverter;
import io.regent.client.RegentClient;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code regent lease grant|keep-alive|revoke|ttl|list}. */
@Command(name = "lease", mixinStandardHelpOptions = true,
    description = {"Grants, renews, revokes and lists leases.",
        "Leases are TTL-bound sessions that hold names. A lease id is the log index of its grant."},
    subcommands = {LeaseCommand.Grant.class, LeaseKeepAliveCommand.class, LeaseCommand.Revoke.class,
        LeaseCommand.Ttl.class, LeaseCommand.ListLeases.class})
public final class LeaseCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing command: grant, keep-alive, revoke, ttl or list");
  }

  /** {@code lease grant TTL}. */
  @Command(name = "grant", mixinStandardHelpOptions = true,
      description = "Grants a lease and prints 'lease ID ttl=Nms'. Nothing renews it: it expires after TTL.")
  static final class Grant implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ClientOptions client;

    @Parameters(index = "0", paramLabel = "TTL", converter = DurationConverter.class,
        description = "time to live, e.g. 10s")
    Duration ttl;

    @Option(names = "--tenant", paramLabel = "TENANT", defaultValue = "",
        description = "on a cluster of several cells, grant the lease in the cell of this tenant or name (a lease "
            + "holds names of its own cell only; docs/architecture.md §14); default: cell 0")
    String tenant;

    @Override
    public Integer call() {
      try (RegentClient c = client.connect()) {
        long id = c.leases().grant(ttl.toMillis(), tenant);
        spec.commandLine().getOut().println(Format.leaseTtl(id, ttl.toMillis(), client.json()));
        return ExitCodes.OK;
      }
    }
  }

  /** {@code lease revoke ID}. */
  @Command(name = "revoke", mixinStandardHelpOptions = true,
      description = "Revokes a lease, freeing every name it holds. Exits 3 when the lease is unknown.")
  static final class Revoke implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ClientOptions client;

    @Parameters(index = "0", paramLabel = "ID", description = "lease id")
    long id;

    @Override
    public Integer call() {
      try (RegentClient c = client.connect()) {
        c.leases().revoke(id);
        spec.commandLine().getOut().println(client.json()
            ? Json.obj().put("id", id).put("revoked", true).toString() : "lease " + id + " revoked");
        return ExitCodes.OK;
      }
    }
  }

  /** {@code lease ttl ID}. */
  @Command(name = "ttl", mixinStandardHelpOptions = true,
      description = "Prints a lease's TTL, the time it has left (as measured by the Raft leader) and the names "
          + "it holds or waits for. Exits 3 when the lease is unknown.")
  static final class Ttl implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ClientOptions client;

    @Parameters(index = "0", paramLabel = "ID", description = "lease id")
    long id;

    @Override
    public Integer call() {
      try (RegentClient c = client.connect()) {
        spec.commandLine().getOut().println(Format.timeToLive(c.leases().timeToLive(id), client.json()));
        return ExitCodes.OK;
      }
    }
  }

  /** {@code lease list}. */
  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "Lists every live lease, one per line: lease ID ttl=Nms names=...")
  static final class ListLeases implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ClientOptions client;

    @Override
    public Integer call() {
      try (RegentClient c = client.connect()) {
        for (LeaseInfo l : c.leases().list()) {
          spec.commandLine().getOut().println(Format.lease(l, client.json()));
        }
        return ExitCodes.OK;
      }
    }
  }
}
