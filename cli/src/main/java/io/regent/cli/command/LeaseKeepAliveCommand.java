package io.regent.cli.command;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.cli.holder.Signals;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Format;
import io.regent.client.RegentClient;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code regent lease keep-alive ID}: renews a lease every ttl/3 until interrupted. */
@Command(name = "keep-alive", mixinStandardHelpOptions = true,
    description = {"Renews a lease every ttl/3 until SIGINT/SIGTERM (exit 0), printing one line per renewal.",
        "Exits 3 when the lease is unknown or has expired; exit 1 when no renewal succeeded for a whole TTL."})
public final class LeaseKeepAliveCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "ID", description = "lease id")
  long id;

  @Override
  public Integer call() throws Exception {
    CountDownLatch interrupted = new CountDownLatch(1);
    Signals.onTermination(interrupted::countDown);
    PrintWriter out = spec.commandLine().getOut();
    try (RegentClient c = client.connect()) {
      long ttlMs = c.leases().keepAlive(id, RegentClient.CALL_TIMEOUT_MS);
      long lastAck = System.nanoTime();
      out.println(Format.leaseTtl(id, ttlMs, client.json()));
      out.flush();
      long period = Math.max(1, ttlMs / 3);
      while (!interrupted.await(period, TimeUnit.MILLISECONDS)) {
        long sent = System.nanoTime();
        try {
          ttlMs = c.leases().keepAlive(id, period);
          lastAck = sent;
          period = Math.max(1, ttlMs / 3);
          out.println(Format.leaseTtl(id, ttlMs, client.json()));
          out.flush();
        } catch (StatusRuntimeException e) {
          Status.Code code = e.getStatus().getCode();
          boolean transient_ = code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED;
          if (!transient_ || System.nanoTime() - lastAck > TimeUnit.MILLISECONDS.toNanos(ttlMs)) {
            throw e;
          }
        }
      }
      return ExitCodes.OK;
    }
  }
}
