package io.regent.cli.command;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.ObserveResponse;
import io.regent.cli.holder.Signals;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Format;
import io.regent.client.RegentClient;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code regent observe NAME}: one line per ownership change of a name. */
@Command(name = "observe", mixinStandardHelpOptions = true,
    description = {"Prints one line per ownership change of NAME.",
        "Prints the current holder of NAME (CURRENT), then one line per ownership change "
        + "(ELECTED, PROCLAIMED, RESIGNED, EXPIRED, REVOKED) with its log index, until interrupted.",
        "Simple format: KIND NAME VALUE token=T lease=L index=I (VALUE... is 'none' when nobody holds NAME)."})
public final class ObserveCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "NAME", converter = NameArgument.class, description = "election name")
  String name;

  @Option(names = "--after", paramLabel = "INDEX", defaultValue = "0",
      description = "resume after this log index (0, the default: start with the current holder)")
  long after;

  @Override
  public Integer call() throws Exception {
    if (after < 0) { // the server refuses it too; a usage error needs no round trip
      throw new ParameterException(spec.commandLine(),
          "--after must be 0 (from the current state) or a log index, not " + after);
    }
    return observe(client, name, after, spec.commandLine().getOut());
  }

  /**
   * Streams events of {@code name} to {@code out} until SIGINT/SIGTERM (exit 0) or the stream ends. An
   * endpoint that cannot be reached before the first event is skipped for the next one; any other stream
   * error is thrown (one line on stderr, exit 1).
   */
  static int observe(ClientOptions options, String name, long after, PrintWriter out) throws Exception {
    List<String> endpoints = options.endpointList();
    CountDownLatch interrupted = new CountDownLatch(1);
    Signals.onTermination(interrupted::countDown);
    StatusRuntimeException last = null;
    for (String endpoint : endpoints) {
      try (RegentClient c = options.connect(List.of(endpoint))) {
        CountDownLatch ended = new CountDownLatch(1);
        AtomicBoolean received = new AtomicBoolean();
        AtomicReference<Throwable> error = new AtomicReference<>();
        Runnable cancel = c.elections().observe(name, after, new StreamObserver<>() {
          @Override
          public void onNext(ObserveResponse r) {
            received.set(true);
            synchronized (out) {
              out.println(Format.event(r, options.json()));
              out.flush();
            }
          }

          @Override
          public void onError(Throwable t) {
            error.set(t);
            ended.countDown();
          }

          @Override
          public void onCompleted() {
            ended.countDown();
          }
        });
        Thread watcher = new Thread(() -> {
          try {
            interrupted.await();
          } catch (InterruptedException e) {
            return;
          }
          ended.countDown();
        }, "regent-observe-signal");
        watcher.setDaemon(true);
        watcher.start();
        ended.await();
        cancel.run();
        if (interrupted.getCount() == 0) {
          return ExitCodes.OK;
        }
        Throwable t = error.get();
        if (t == null) {
          return ExitCodes.OK;
        }
        StatusRuntimeException s = t instanceof StatusRuntimeException sre ? sre
            : Status.fromThrowable(t).asRuntimeException();
        if (s.getStatus().getCode() != Status.Code.UNAVAILABLE || received.get()) {
          throw s;
        }
        last = s;
      }
    }
    throw last;
  }
}
