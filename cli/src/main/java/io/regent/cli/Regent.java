package io.regent.cli;

import io.regent.cli.cluster.ClusterCommand;
import io.regent.cli.command.CertsCommand;
import io.regent.cli.command.CompletionCommand;
import io.regent.cli.command.ElectCommand;
import io.regent.cli.command.EndpointCommand;
import io.regent.cli.command.group.GroupCommand;
import io.regent.cli.command.LeaderCommand;
import io.regent.cli.command.LeaseCommand;
import io.regent.cli.command.LockCommand;
import io.regent.cli.command.MemberCommand;
import io.regent.cli.command.ObserveCommand;
import io.regent.cli.command.server.ServerCommand;
import io.regent.cli.command.SnapshotCommand;
import io.regent.cli.command.StatusCommand;
import io.regent.cli.command.VersionCommand;
import io.regent.cli.demo.DemoCommand;
import io.regent.cli.ledger.LedgerCommand;
import io.regent.cli.output.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code regent}: the command line of a Regent cluster (docs/architecture.md §7). */
@Command(name = "regent", mixinStandardHelpOptions = true, versionProvider = Regent.Version.class,
    description = "Raft-replicated leases and elections with fencing tokens.",
    subcommands = {ServerCommand.class, ClusterCommand.class, ElectCommand.class, ObserveCommand.class,
        LeaderCommand.class, LeaseCommand.class, StatusCommand.class, LockCommand.class, LedgerCommand.class,
        DemoCommand.class, io.regent.cli.bench.BenchCommand.class,
        SnapshotCommand.class, MemberCommand.class, CertsCommand.class, GroupCommand.class, EndpointCommand.class,
        VersionCommand.class, CompletionCommand.class},
    footer = {"", ExitCodes.FOOTER})
public final class Regent implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing command");
  }

  /** A configured command line: central exit-code mapping for usage and execution errors. */
  public static CommandLine commandLine() {
    ExitCodes handler = new ExitCodes();
    CommandLine cmd = new CommandLine(new Regent())
        .setExecutionExceptionHandler(handler)
        .setParameterExceptionHandler(handler);
    withExitCodes(cmd);
    return cmd;
  }

  /** Every command's --help ends with the exit codes (a script needs them for the command it runs). */
  private static void withExitCodes(CommandLine cmd) {
    if (cmd.getCommandSpec().usageMessage().footer().length == 0) {
      cmd.getCommandSpec().usageMessage().footer("", ExitCodes.FOOTER);
    }
    cmd.getSubcommands().values().forEach(Regent::withExitCodes);
  }

  private static final String FJ_PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("server")) {
      // A node logs what it does to stdout (redirected to its log file by `cluster up`); client commands
      // only log warnings, to stderr, so that their stdout stays machine-readable.
      System.setProperty("regent.log.target", "System.out");
      System.setProperty("regent.log.level", "INFO");
      System.setProperty("regent.log.ratis", "INFO");
      // Ratis completes its futures on the common ForkJoinPool, whose default parallelism is cores - 1: one
      // thread on a 2-core machine, a bottleneck (docs/ratis.md §13: 1 674 -> 4 230 writes/s with 2). Set
      // before anything touches the pool; an explicit -D on the command line wins.
      if (System.getProperty(FJ_PARALLELISM) == null) {
        System.setProperty(FJ_PARALLELISM, String.valueOf(Math.max(2, Runtime.getRuntime().availableProcessors())));
      }
    } else if (args.length > 1 && args[0].equals("ledger") && args[1].equals("serve")) {
      System.setProperty("regent.log.level", "INFO"); // each refused append, with its token and H, on stderr
    }
    System.exit(commandLine().execute(args));
  }

  /** The version from the jar manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Regent.class.getPackage().getImplementationVersion();
      return new String[] {"regent " + (v == null ? "(development build)" : v)};
    }
  }
}
