package io.regent.cli.command.group;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.GroupWatchResponse;
import io.regent.cli.command.ClientOptions;
import io.regent.cli.holder.Signals;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Json;
import io.regent.client.GroupClient;
import io.regent.client.RegentClient;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code regent group observe GROUP MEMBER}: one line per change of a member's assignment. */
@Command(name = "observe", mixinStandardHelpOptions = true,
    description = {"Prints MEMBER's assignment in GROUP, then one line each time it changes, until interrupted.",
        "simple: 'index=I owned=P:T,... release=P,... incoming=P,...'; json: one object per line with \"index\", "
            + "\"joined\", \"owned\" ([{\"partition\":P,\"token\":T}]), \"release\" and \"incoming\"."})
public final class GroupObserveCommand implements Callable<Integer> {
  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "GROUP", description = "group name")
  String group;

  @Parameters(index = "1", paramLabel = "MEMBER", description = "member id")
  String member;

  @Option(names = "--after", paramLabel = "INDEX", defaultValue = "0",
      description = "only assignments above this log index (resume)")
  long after;

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (after < 0) { // the server refuses it too; a usage error needs no round trip
      throw new ParameterException(spec.commandLine(),
          "--after must be 0 (from the current state) or a log index, not " + after);
    }
    PrintWriter out = spec.commandLine().getOut();
    CompletableFuture<Integer> done = new CompletableFuture<>();
    Signals.onTermination(() -> done.complete(ExitCodes.OK));
    try (RegentClient c = client.connect()) {
      Runnable cancel = new GroupClient(c).watch(group, member, after, new StreamObserver<>() {
        @Override
        public void onNext(GroupWatchResponse r) {
          synchronized (out) {
            out.println(format(r, client.json()));
            out.flush();
          }
        }

        @Override
        public void onError(Throwable t) {
          spec.commandLine().getErr().println(ExitCodes.message(t));
          spec.commandLine().getErr().flush();
          done.complete(ExitCodes.forStatus(Status.fromThrowable(t).getCode()));
        }

        @Override
        public void onCompleted() {
          done.complete(ExitCodes.OK);
        }
      });
      int code = done.get();
      cancel.run();
      return code;
    }
  }

  static String format(GroupWatchResponse r, boolean json) {
    if (json) {
      return Json.obj().put("index", r.getIndex()).put("joined", r.getJoined())
          .put("owned", r.getOwnedList().stream().map(p -> Json.obj().put("partition", p.getPartition())
              .put("token", p.getToken())).toList())
          .put("release", r.getReleaseList()).put("incoming", r.getIncomingList()).toString();
    }
    return "index=" + r.getIndex() + " owned=" + r.getOwnedList().stream()
        .map(p -> p.getPartition() + ":" + p.getToken()).collect(Collectors.joining(","))
        + " release=" + r.getReleaseList().stream().map(String::valueOf).collect(Collectors.joining(","))
        + " incoming=" + r.getIncomingList().stream().map(String::valueOf).collect(Collectors.joining(","));
  }
}
