package io.regent.cli.command;

import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaderResponse;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Format;
import io.regent.client.RegentClient;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code regent leader NAME}: the current holder of a name, read linearizably, or from the answering node's own
 * state with {@code --serializable}; the JSON output carries the log index the answer reflects.
 */
@Command(name = "leader", mixinStandardHelpOptions = true,
    description = {"Prints the current holder of NAME.", "Output: NAME VALUE token=T lease=L (or one JSON object, "
        + "with \"index\": the log index the answer reflects).", "Exits 3 when NAME has no holder."})
public final class LeaderCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "NAME", converter = NameArgument.class, description = "election name")
  String name;

  @Option(names = "--serializable",
      description = "read the answering node's own state without a leadership confirmation (may be stale: see index)")
  boolean serializable;

  @Override
  public Integer call() {
    try (RegentClient c = client.connect()) {
      Optional<LeaderResponse> holder = c.elections().leader(name, serializable);
      if (holder.isEmpty()) {
        spec.commandLine().getErr().println("no leader: nobody holds '" + name + "'");
        return ExitCodes.NOT_FOUND;
      }
      LeaderKey k = holder.get().getLeader();
      spec.commandLine().getOut().println(client.json()
          ? Format.leaderJson(k).put("index", holder.get().getAppliedIndex()).toString()
          : Format.leaderKey(k, false));
      return ExitCodes.OK;
    }
  }
}
