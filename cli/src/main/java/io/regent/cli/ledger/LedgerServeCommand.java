package io.regent.cli.ledger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.regent.cli.cluster.ProcessCluster;
import io.regent.cli.holder.Signals;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.settings.DurationConverter;
import io.regent.fencing.FenceMetrics;
import io.regent.ledger.LedgerMode;
import io.regent.ledger.LedgerServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code regent ledger serve}: runs the fenced ledger until SIGINT/SIGTERM. */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = {"Runs the fenced ledger (gRPC service regent.v1.Ledger) until SIGINT/SIGTERM.",
        "Prints 'ledger serving on HOST:PORT ...' once it accepts appends (--port 0 picks a free port). Each "
            + "refused append is logged on stderr with its token and H, and counted in "
            + "regent_fence_rejected_total, whose total is printed on exit.",
        "Modes: monotone (default) admits token >= H, so a holder may append many times with its one token; "
            + "--strict admits token > H only (each append needs a fresh token: `regent elect "
            + "--fresh-token-every`); --unfenced admits every token and is UNSAFE: it exists only as the "
            + "negative control that shows the zombie leader's write getting through."})
public final class LedgerServeCommand implements Callable<Integer> {
  /** Port used when {@code --port} is not given. */
  public static final int DEFAULT_PORT = 7200;

  @Spec
  CommandSpec spec;

  @Option(names = "--port", paramLabel = "P", defaultValue = "" + DEFAULT_PORT,
      description = "TCP port on 127.0.0.1; 0 picks a free one (default: ${DEFAULT-VALUE})")
  int port;

  @Option(names = "--data-dir", paramLabel = "DIR", required = true,
      description = "LMDB directory; reopening it keeps every entry and every H")
  Path dataDir;

  @Option(names = "--idempotency-retention", paramLabel = "DURATION", defaultValue = "24h",
      converter = DurationConverter.class,
      description = "how long an append's idempotency key is remembered (default: ${DEFAULT-VALUE}, as Stripe keeps "
          + "its keys); at least the clients' longest retry window")
  Duration idempotencyRetention;

  @ArgGroup(exclusive = true)
  Mode mode = new Mode();

  /** --strict or --unfenced; neither is monotone. */
  static final class Mode {
    @Option(names = "--strict", description = "admit token > H only")
    boolean strict;

    @Option(names = "--unfenced", description = "NEGATIVE CONTROL, unsafe: admit every token")
    boolean unfenced;

    LedgerMode value() {
      return strict ? LedgerMode.STRICT : unfenced ? LedgerMode.UNFENCED : LedgerMode.MONOTONE;
    }
  }

  @Override
  public Integer call() throws Exception {
    if (port < 0 || port > 65_535) {
      throw new ParameterException(spec.commandLine(), "--port must be within 0..65535");
    }
    if (idempotencyRetention.isNegative() || idempotencyRetention.isZero()) {
      throw new ParameterException(spec.commandLine(), "--idempotency-retention must be positive");
    }
    PrintWriter out = spec.commandLine().getOut();
    LedgerMode m = mode.value();
    MeterRegistry registry = new SimpleMeterRegistry();
    LedgerServer server;
    try {
      server = LedgerServer.start(new InetSocketAddress(ProcessCluster.HOST, port), dataDir, m, registry,
          idempotencyRetention);
    } catch (IOException e) {
      throw new IOException("cannot serve the ledger on port " + port + ": " + e.getMessage(), e);
    }
    if (m == LedgerMode.UNFENCED) {
      spec.commandLine().getErr().println("WARNING: --unfenced: this ledger admits every token, stale or not; it "
          + "is the negative control of the zombie-leader scenario, not a resource to use");
      spec.commandLine().getErr().flush();
    }
    out.println("ledger serving on " + ProcessCluster.HOST + ":" + server.port() + " (" + describe(m) + "), data in "
        + dataDir.toAbsolutePath());
    out.flush();
    CountDownLatch signalled = new CountDownLatch(1);
    Signals.onTermination(signalled::countDown);
    signalled.await();
    server.close();
    double rejected = registry.find(FenceMetrics.REJECTED).counters().stream().mapToDouble(Counter::count).sum();
    out.println("ledger stopped: " + FenceMetrics.REJECTED + " " + (long) rejected);
    out.flush();
    return ExitCodes.OK;
  }

  private static String describe(LedgerMode m) {
    String name = m.name().toLowerCase(Locale.ROOT);
    return m.fencing().map(f -> name + ": admits token " + f.rule() + " H").orElse(name + ": admits every token");
  }
}
