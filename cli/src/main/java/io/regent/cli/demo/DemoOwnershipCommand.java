package io.regent.cli.demo;

import io.regent.cli.settings.DurationConverter;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code regent demo ownership}: an ownership group's partitions move from a paused worker, fenced per partition. */
@Command(name = "ownership", mixinStandardHelpOptions = true,
    description = {"Shows per-partition fencing tokens at work on a throw-away local cluster (docs/ownership.md).",
        "Starts 3 `regent server` processes and a fenced ledger in a temporary directory on free ports (from "
            + "27000), and 3 workers (`regent group join orders wN --partitions 16 --exec`) whose writers append "
            + "to the ledger key orders/P of each partition P they own, with that partition's token. One worker "
            + "is frozen with SIGSTOP beyond its lease TTL: its partitions move to the other two with higher "
            + "tokens. Its writer is resumed and every write it attempts on its former partitions is refused by "
            + "the ledger; then the worker itself notices that its lease is gone and exits. Always stops what it "
            + "started; keeps the node logs only when something failed.",
        "Exits 0 when every check holds (every late write refused), 1 otherwise."})
public final class DemoOwnershipCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--ttl", paramLabel = "DURATION", defaultValue = "5s", converter = DurationConverter.class,
      description = "lease TTL of the workers (default: ${DEFAULT-VALUE}; at least 1.8s)")
  Duration ttl;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    return DemoCommand.perform(out, "regent-demo-ownership-", dir -> new DemoOwnership(out, dir, ttl.toMillis()));
  }
}
