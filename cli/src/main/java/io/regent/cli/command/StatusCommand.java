package io.regent.cli.command;

import io.regent.api.v1.StatusResponse;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Format;
import io.regent.client.RegentClient;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code regent status}: the answering node's view of the cluster. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = {"Prints the cluster's members, Raft leader, term and indexes.",
        "Prints the members, the Raft leader, the term and the commit and applied indexes, as seen by "
        + "the first reachable endpoint (after a leadership confirmation).",
        "-w json prints one object: node, role, leader, term, commit_index, applied_index, members [{id, address, "
            + "api_address, role, match_index, lag_entries, lag_seconds}] (the three lag fields from the Raft leader "
            + "only, null in a follower's answer), degraded (the leader's \"degraded: n3 behind 5000 entries for "
            + "60 s\" when a follower lags, else null), console_url (the answering node's web console, null when it serves none), etcd_address (its etcd-compatible services, null when it serves none).",
        "Only the Raft leader knows each follower's match index and lag (docs/operations.md, \"Follower lag\"): "
            + "a follower's answer names the leader to ask instead.",
        "Exits 3 when the answering node knows no Raft leader."})
public final class StatusCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Override
  public Integer call() {
    try (RegentClient c = client.connect()) {
      StatusResponse s = c.cluster().status();
      spec.commandLine().getOut().println(Format.status(s, client.json()));
      return s.getLeader().isEmpty() ? ExitCodes.NOT_FOUND : ExitCodes.OK;
    }
  }
}
