package io.regent.cli.command;

import io.grpc.StatusRuntimeException;
import io.regent.api.v1.StatusResponse;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Json;
import io.regent.cli.output.Table;
import io.regent.client.RegentClient;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code regent endpoint status}: each endpoint's node, version, role, term, indexes and state size. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = {"Prints each endpoint's own state, read without a leadership confirmation (so that a node "
        + "cut off from its leader still answers): node id, Regent version, Raft role, leader, term, commit and "
        + "applied index, size of its state file.",
        "Default: one line per endpoint; -w json: {endpoint, node, version, role, leader, term, commit_index, "
            + "applied_index, db_size_bytes}; -w table: one row per endpoint.",
        "An endpoint that does not answer gets one 'error: E: ...' line on stderr; the exit code is then 5."})
public final class EndpointStatusCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Table table = new Table("ENDPOINT", "NODE", "VERSION", "ROLE", "LEADER", "TERM", "COMMIT", "APPLIED", "DB SIZE");
    int code = ExitCodes.OK;
    for (String endpoint : client.endpointList()) {
      StatusResponse s;
      try (RegentClient c = client.connectOnly(endpoint)) {
        s = c.cluster().status(true);
      } catch (StatusRuntimeException e) {
        err.println("error: " + endpoint + ": " + ExitCodes.message(e));
        err.flush();
        code = ExitCodes.UNAVAILABLE;
        continue;
      }
      String leader = s.getLeader().isEmpty() ? null : s.getLeader();
      if (client.json()) {
        out.println(Json.obj().put("endpoint", endpoint).put("node", s.getNode()).put("version", s.getVersion())
            .put("role", s.getRole()).put("leader", leader).put("term", s.getTerm())
            .put("commit_index", s.getCommitIndex()).put("applied_index", s.getAppliedIndex())
            .put("db_size_bytes", s.getDbSizeBytes()));
      } else if (client.table()) {
        table.row(endpoint, s.getNode(), s.getVersion(), s.getRole(), leader == null ? "none" : leader, s.getTerm(),
            s.getCommitIndex(), s.getAppliedIndex(), size(s.getDbSizeBytes()));
      } else {
        out.println(endpoint + " node=" + s.getNode() + " version=" + s.getVersion().replace(' ', '-') + " role="
            + s.getRole() + " leader=" + (leader == null ? "none" : leader) + " term=" + s.getTerm() + " commit="
            + s.getCommitIndex() + " applied=" + s.getAppliedIndex() + " db=" + size(s.getDbSizeBytes()));
      }
    }
    if (client.table()) {
      out.println(table);
    }
    return code;
  }

  /** Bytes in B, kB, MB or GB (decimal, as etcdctl prints them). */
  static String size(long bytes) {
    if (bytes < 1_000) {
      return bytes + " B";
    }
    String[] units = {"kB", "MB", "GB", "TB"};
    double v = bytes;
    int u = -1;
    while (v >= 1_000 && u < units.length - 1) {
      v /= 1_000;
      u++;
    }
    return String.format(java.util.Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
