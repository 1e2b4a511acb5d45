package io.regent.cli;

import io.regent.api.v1.LeaderKey;
import io.regent.client.RegentClient;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code regent leader NAME}: the current holder of a name, read linearizably. */
@Command(name = "leader", mixinStandardHelpOptions = true,
    description = {"Prints the current holder of NAME.", "Output: NAME VALUE token=T lease=L (or one JSON object).",
        "Exits 3 when NAME has no holder."})
public final class LeaderCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "NAME", description = "election name")
  String name;

  @Override
  public Integer call() {
    try (RegentClient c = client.connect()) {
      Optional<LeaderKey> holder = c.leader(name);
      if (holder.isEmpty()) {
        spec.commandLine().getErr().println("no leader: nobody holds '" + name + "'");
        return ExitCodes.NOT_FOUND;
      }
      spec.commandLine().getOut().println(Format.leaderKey(holder.get(), client.json()));
      return ExitCodes.OK;
    }
  }
}
