package io.regent.cli.cluster;

import io.regent.cli.output.ExitCodes;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code regent cluster down}: stops exactly the processes recorded in the cluster directory. */
@Command(name = "down", mixinStandardHelpOptions = true,
    description = "Stops the nodes recorded in DIR/<id>.pid: SIGTERM, then SIGKILL after 10 s. Data and logs stay.")
public final class ClusterDownCommand implements Callable<Integer> {
  /** How long nodes get to stop after SIGTERM. */
  public static final long GRACE_MS = 10_000;

  @Spec
  CommandSpec spec;

  @Option(names = "--dir", paramLabel = "DIR", defaultValue = "regent-data",
      description = "cluster directory (default: ./${DEFAULT-VALUE})")
  Path dir;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    Optional<ProcessCluster> cluster = ProcessCluster.load(dir);
    if (cluster.isEmpty()) {
      err.println("no cluster in " + dir.toAbsolutePath() + " (no cluster.conf): nothing to stop");
      err.flush();
      return ExitCodes.OK;
    }
    cluster.get().stop(GRACE_MS, err);
    return ExitCodes.OK;
  }
}
