package io.regent.cli.command;

import io.grpc.StatusRuntimeException;
import io.regent.api.v1.Member;
import io.regent.api.v1.StatusResponse;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Format;
import io.regent.client.RegentClient;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code regent status}: the answering node's view of the cluster, with the leader's figures of follower lag. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = {"Prints the cluster's members, Raft leader, term and indexes.",
        "Prints the members, the Raft leader, the term and the commit and applied indexes, as seen by "
        + "the first reachable endpoint (after a leadership confirmation).",
        "-w json prints one object: node, role, leader, term, commit_index, applied_index, members [{id, address, "
            + "api_address, role, match_index, lag_entries, lag_seconds}] (the three lag fields from the Raft leader "
            + "only, null when it cannot be asked), degraded (the leader's \"degraded: n3 behind 5000 entries for "
            + "60 s\" when a follower lags, else null), console_url (the answering node's web console, null when it serves none), etcd_address (its etcd-compatible services, null when it serves none), cells [{cell, leader, term, commit_index, applied_index, role}] (on a cluster of several cells: each cell as the answering node sees it, role STOPPED for a cell whose division stopped; else null).",
        "Only the Raft leader knows each follower's match index and lag (docs/operations.md, \"Follower lag\"): "
            + "when a follower answers, they are asked of the leader at the API address it published.",
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
      spec.commandLine().getOut().println(Format.status(withLeadersLag(s), client.json()));
      return s.getLeader().isEmpty() ? ExitCodes.NOT_FOUND : ExitCodes.OK;
    }
  }

  /**
   * {@code s} with each member's lag and the degraded line as the Raft leader reports them, when a follower
   * answered {@code s} and the leader answers at its published API address; else {@code s} as it is (the output
   * then says to ask the leader).
   */
  private StatusResponse withLeadersLag(StatusResponse s) {
    String api = s.getMembersList().stream().filter(m -> m.getId().equals(s.getLeader())).findFirst()
        .map(Member::getApiAddress).orElse("");
    if (s.getLeader().isEmpty() || s.getLeader().equals(s.getNode()) || api.isEmpty()) {
      return s;
    }
    StatusResponse leader;
    try (RegentClient l = client.connectOnly(api)) {
      leader = l.cluster().status(true); // its own view: only the lag figures are taken from it
    } catch (StatusRuntimeException e) {
      return s;
    }
    if (!leader.getRole().equals("LEADER") || !leader.getNode().equals(s.getLeader())) {
      return s; // leadership moved meanwhile: its figures would be another leader's or none
    }
    Map<String, Member> lag = new HashMap<>();
    leader.getMembersList().forEach(m -> lag.put(m.getId(), m));
    StatusResponse.Builder out = s.toBuilder().setDegraded(leader.getDegraded()).clearMembers();
    for (Member m : s.getMembersList()) {
      Member l = lag.get(m.getId());
      out.addMembers(l == null || !l.hasReplication() ? m : m.toBuilder().setReplication(l.getReplication()).build());
    }
    return out.build();
  }
}
