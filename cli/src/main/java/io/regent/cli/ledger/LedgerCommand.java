package io.regent.cli.ledger;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code regent ledger}: the fenced demo resource (docs/architecture.md §5) and its client commands. */
@Command(name = "ledger", mixinStandardHelpOptions = true,
    description = {"The fenced ledger: an append-only log per key that refuses stale fencing tokens.",
        "Per key it remembers H, the highest token it has admitted, and refuses an append whose token is "
            + "below H (monotone, the default) or not above H (--strict). It stands for any storage a leader "
            + "writes to: it knows nothing of Raft, it only compares tokens."},
    subcommands = {LedgerServeCommand.class, LedgerAppendCommand.class, LedgerReadCommand.class,
        LedgerAppendLoopCommand.class, LedgerPartitionLoopCommand.class})
public final class LedgerCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing command: serve, append or read");
  }
}
