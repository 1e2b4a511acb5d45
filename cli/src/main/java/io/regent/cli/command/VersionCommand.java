package io.regent.cli.command;

import io.grpc.StatusRuntimeException;
import io.regent.api.v1.StatusResponse;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Json;
import io.regent.client.RegentClient;
import io.regent.client.RegentVersion;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code regent version}: this client's version and the answering server's. */
@Command(name = "version", mixinStandardHelpOptions = true,
    description = {"Prints this client's version and the version of the first endpoint that answers.",
        "Default: 'client VERSION' and 'server VERSION (node N at E)' lines; -w json: {client, server, node, "
            + "endpoint}. When no endpoint answers, prints the client line, one error line, and exits 5."})
public final class VersionCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    String mine = RegentVersion.current();
    StatusResponse s;
    try (RegentClient c = client.connect()) {
      s = c.cluster().status(true);
    } catch (StatusRuntimeException e) {
      out.println(client.json() ? Json.obj().put("client", mine).put("server", null) : "client " + mine);
      out.flush();
      throw e;
    }
    if (client.json()) {
      out.println(Json.obj().put("client", mine).put("server", s.getVersion()).put("node", s.getNode()));
    } else {
      out.println("client " + mine);
      out.println("server " + s.getVersion() + " (node " + s.getNode() + ")");
    }
    return ExitCodes.OK;
  }
}
