package io.regent.cli.command;

import io.grpc.StatusRuntimeException;
import io.regent.cli.output.ExitCodes;
import io.regent.client.MemberArgs;
import io.regent.client.RegentClient;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code member add ID --raft HOST:PORT --api HOST:PORT}: adds a learner. */
@Command(name = "add", mixinStandardHelpOptions = true,
    description = {"Adds a learner, then prints the members.",
        "Start the new node first, without peers: regent server --id ID --raft HOST:PORT --api-port P "
            + "--data-dir DIR. The call returns once the leader has brought the node up to date (by snapshot if "
            + "need be) and committed the new configuration. Exits 1 when the id or Raft address is already a "
            + "member's, or when the node does not catch up in time (nothing changes then)."})
final class MemberAddCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "ID", description = "the new member's id (its --id)")
  String id;

  @Option(names = "--raft", paramLabel = "HOST:PORT", required = true,
      description = "the new member's Raft address (its --raft)")
  String raft;

  @Option(names = "--api", paramLabel = "HOST:PORT", required = true,
      description = "the new member's public API address")
  String api;

  @Override
  public Integer call() {
    MemberCommand.checkedId(spec, id);
    try {
      MemberArgs.address("--raft", raft);
      MemberArgs.address("--api", api);
    } catch (StatusRuntimeException e) {
      throw new ParameterException(spec.commandLine(), e.getStatus().getDescription());
    }
    try (RegentClient c = client.connect()) {
      MemberCommand.print(spec, MemberCommand.refusalsAreErrors(c, x -> x.cluster().memberAdd(id, raft, api)), "",
          client.json());
      return ExitCodes.OK;
    }
  }
}
