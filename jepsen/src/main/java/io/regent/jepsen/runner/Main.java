package io.regent.jepsen.runner;

import io.regent.jepsen.compare.CompareCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code jepsen/run}: {@code test} runs a Jepsen-style test against real Regent servers; {@code
 * check} re-checks a stored {@code history.edn}; {@code pause} runs the leader-pause check; {@code overload} keepalives under a flood; {@code restart} kills and restarts nodes under writes and checks
 * that each catches up; {@code compare} measures Regent against the single-writer
 * mode and etcd ({@code regent compare}). Exit codes of test and check: 0 valid, 1 invalid, 2 unknown, crashed
 * or bad usage.
 */
@Command(name = "jepsen/run", mixinStandardHelpOptions = true,
    subcommands = {TestCommand.class, CheckCommand.class, PauseCommand.class, OverloadCommand.class, RestartCommand.class,
        FrozenLeaderCommand.class, CompareCommand.class},
    description = {"Jepsen-style tests of Regent: real server processes, real faults, checked histories.",
        "Exit codes: 0 valid, 1 invalid, 2 unknown, crashed or bad usage."})
public final class Main implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  /** Entry point. */
  public static void main(String[] args) {
    int code = new CommandLine(new Main()).execute(args);
    System.exit(code);
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "give a command: test, check, pause, overload, restart or compare");
  }
}
