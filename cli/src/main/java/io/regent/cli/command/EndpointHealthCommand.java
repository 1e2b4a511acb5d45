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

/** {@code regent endpoint health}: whether each endpoint answers a linearizable read, and how fast. */
@Command(name = "health", mixinStandardHelpOptions = true,
    description = {"Checks each endpoint: healthy when it answers a Status read taken after a leadership "
        + "confirmation (so it has a leader that a quorum follows) within --command-timeout.",
        "Prints one line per endpoint ('E is healthy: took T ms' or 'E is unhealthy: ERROR'); -w json: "
            + "{endpoint, health, took_ms, error}; -w table: ENDPOINT HEALTH TOOK ERROR.",
        "Exits 0 when every endpoint is healthy, else 5."})
public final class EndpointHealthCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    Table table = new Table("ENDPOINT", "HEALTH", "TOOK", "ERROR");
    boolean allHealthy = true;
    for (String endpoint : client.endpointList()) {
      long start = System.nanoTime();
      String error = null;
      try (RegentClient c = client.connectOnly(endpoint)) {
        StatusResponse s = c.cluster().status();
        if (s.getLeader().isEmpty()) {
          error = "no Raft leader";
        }
      } catch (StatusRuntimeException e) {
        error = ExitCodes.message(e);
      }
      long tookMs = (System.nanoTime() - start) / 1_000_000;
      allHealthy &= error == null;
      if (client.json()) {
        out.println(Json.obj().put("endpoint", endpoint).put("health", error == null).put("took_ms", tookMs)
            .put("error", error));
      } else if (client.table()) {
        table.row(endpoint, error == null, tookMs + " ms", error == null ? "" : error);
      } else {
        out.println(endpoint + (error == null ? " is healthy: took " + tookMs + " ms" : " is unhealthy: " + error));
      }
    }
    if (client.table()) {
      out.println(table);
    }
    return allHealthy ? ExitCodes.OK : ExitCodes.UNAVAILABLE;
  }
}
