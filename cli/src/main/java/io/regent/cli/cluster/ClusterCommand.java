package io.regent.cli.cluster;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code regent cluster up|down}: a cluster of local server processes, for trying Regent out. */
@Command(name = "cluster", mixinStandardHelpOptions = true,
    description = "Starts or stops a cluster of local `regent server` processes.",
    subcommands = {ClusterUpCommand.class, ClusterDownCommand.class})
public final class ClusterCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing command: up or down");
  }
}
