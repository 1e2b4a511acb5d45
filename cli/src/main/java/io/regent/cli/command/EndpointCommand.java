package io.regent.cli.command;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code regent endpoint health|status}: each endpoint on its own (etcdctl's endpoint commands). */
@Command(name = "endpoint", mixinStandardHelpOptions = true,
    description = "Asks each endpoint on its own: is it healthy, what is its state.",
    subcommands = {EndpointHealthCommand.class, EndpointStatusCommand.class})
public final class EndpointCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing command: health or status");
  }
}
