package io.regent.bench.load;

import io.regent.bench.load.ClientLoop.Op;
import io.regent.bench.load.Workloads.Workload;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.HdrHistogram.Histogram;

/** One benchmark run: connect the clients, set up, warm up, measure with a progress line, tear down. */
public final class BenchRun {
  /**
   * What to run.
   *
   * @param target {@code regent}, {@code etcd} or {@code ratis} (see {@link Target#connect})
   * @param workload one of {@link #WORKLOADS}
   * @param rate total operations per second, open loop; 0 for closed loop ({@code overload}: the flood's)
   * @param ttlMs TTL of every lease the run grants
   * @param pidDir directory of {@code *.pid} files whose processes' CPU and memory to report, or null
   * @param partitions {@code rebalance}: the group's partition count
   * @param members {@code rebalance}: members before the join ({@link RebalanceRun})
   * @param floodClients {@code overload}: clients flooding reads and campaigns ({@link OverloadWorkload}); 0 for
   *     none, the unloaded baseline of the well-behaved reader
   * @param tls how the clients connect (the {@code overload} flood aside): their identity
   * @param floodTls how the {@code overload} flood connects: its own identity, so that per-identity quotas can
   *     shed it and not the others (docs/architecture.md §7.2)
   * @param tenant the tenant of every name ({@code TENANT/RUN/...}) and Regent lease the run uses, so that on a
   *     cluster of several cells they all sit in that tenant's cell (docs/architecture.md §14); {@link
   *     #DEFAULT_TENANT} by default
   */
  public record Config(String target, List<String> endpoints, String workload, int clients, Duration duration,
      Duration warmup, double rate, int leases, long ttlMs, Path pidDir, String label, int partitions, int members,
      int floodClients, ClientTls tls, ClientTls floodTls, String tenant) {
  }

  /** The tenant of a run that names none: its names are {@code bench/RUN/...}, as before cells. */
  public static final String DEFAULT_TENANT = "bench";

  /** The workloads {@link Config#workload} may name. */
  public static final List<String> WORKLOADS =
      List.of("campaign", "campaign4", "campaign-all", "keepalive", "leader-read", "handover", "fresh-token", "rebalance",
          "overload");

  private final Config c;
  private final PrintWriter progress;
  private volatile boolean running = true;
  /** The {@code overload} workload's flood, or null. */
  private OverloadWorkload overload;
  /** CPU time of this JVM when measuring began (ns), and its average use while measuring (cores). */
  private long generatorCpuFrom;
  private double generatorCores;

  /** @param progress where the once-a-second progress line goes; null for none */
  public BenchRun(Config config, PrintWriter progress) {
    this.c = config;
    this.progress = progress;
  }

  /** Runs the benchmark; the clients are closed when it returns. */
  public BenchResult run() throws Exception {
    if (c.workload().equals("rebalance")) {
      return new RebalanceRun(new RebalanceRun.Config(c.endpoints(), c.partitions(), c.members(), c.ttlMs(),
          c.pidDir(), c.label()), progress).run();
    }
    Target[] targets = new Target[c.clients()];
    for (int i = 0; i < targets.length; i++) {
      targets[i] = Target.connect(c.target(), c.endpoints(), i, c.tls(), c.tenant());
    }
    String prefix = c.tenant() + "/" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()) + "/";
    LatencyStats stats = new LatencyStats();
    ServerLoad load = ServerLoad.of(c.pidDir());
    Map<String, Object> extras = BenchResult.newExtras();
    List<Thread> threads = new ArrayList<>();
    KeepaliveWorkload keepalive = null;
    Workload workload = null;
    List<Target> floodTargets = new ArrayList<>();
    try {
      long start;
      if (c.workload().equals("overload")) {
        for (int i = 0; i <= c.floodClients(); i++) {
          // the first is the well-behaved reader, on the keepalive clients' identity
          floodTargets.add(Target.connect(c.target(), c.endpoints(), targets.length + i,
              i == 0 ? c.tls() : c.floodTls(), c.tenant()));
        }
        overload = new OverloadWorkload(floodTargets.subList(1, floodTargets.size()).toArray(Target[]::new),
            floodTargets.get(0), prefix, c.ttlMs(), c.rate());
      }
      if (c.workload().equals("keepalive") || overload != null) {
        KeepaliveWorkload k = keepalive = new KeepaliveWorkload(targets, c.leases(), c.ttlMs(), stats);
        for (int i = 0; i < targets.length; i++) {
          int client = i;
          threads.add(daemon("bench-" + i, () -> k.run(client, this::running)));
        }
        say("granting " + c.leases() + " leases (renewals start with the first grants)");
        say("granted in " + k.setup() + " ms");
        if (overload != null) {
          say("flooding with " + c.floodClients() + " clients (reads and campaigns, "
              + (c.rate() > 0 ? "open loop at " + c.rate() + " calls/s)" : "closed loop)"));
          threads.addAll(overload.start(this::running));
        }
        start = System.nanoTime();
      } else {
        workload = switch (c.workload()) {
          case "campaign" -> Workloads.campaign(targets, prefix, c.ttlMs());
          case "campaign4" -> Workloads.campaign4(targets, prefix, c.ttlMs());
          case "campaign-all" -> Workloads.campaignAll(targets, prefix, c.ttlMs());
          case "leader-read" -> Workloads.leaderRead(targets, prefix, c.ttlMs());
          case "fresh-token" -> Workloads.freshToken(targets, prefix, c.ttlMs());
          default -> Workloads.handover(targets, prefix, c.ttlMs());
        };
        Op[] ops = new Op[targets.length];
        for (int i = 0; i < ops.length; i++) {
          ops[i] = workload.op(i);
        }
        start = System.nanoTime();
        for (int i = 0; i < ops.length; i++) {
          int client = i;
          ClientLoop loop = ClientLoop.real(stats);
          threads.add(daemon("bench-" + i, () -> {
            try {
              if (c.rate() > 0) {
                loop.open(ops[client], this::running, start, c.rate(), client, ops.length);
              } else {
                loop.closed(ops[client], this::running);
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }));
        }
      }
      double seconds = measure(stats, load, start);
      running = false;
      if (load.any()) {
        extras.put("server_cpu_cores", BenchResult.round(load.cores()));
        extras.put("server_runqueue_wait", BenchResult.round(load.runQueueWaitCores()));
        extras.put("server_rss_mib", BenchResult.round(load.maxRssMib()));
      }
      for (Thread t : threads) {
        t.join(20_000);
      }
      if (keepalive != null) {
        extras.put("leases", (long) c.leases());
        extras.put("ttl_ms", c.ttlMs());
        extras.put("setup_ms", keepalive.setupMs());
        extras.put("spurious_expiries", keepalive.spurious.get());
        extras.put("lost_leases", keepalive.lost.get());
        if (overload != null) {
          overload.report(extras, seconds);
        }
        keepalive.teardown();
      }
      // the load generator shares the 2 cores with the servers: what it took is part of every figure
      extras.put("generator_cpu_cores", BenchResult.round(generatorCores));
      extras.put("load1", BenchResult.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
      return new BenchResult(OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString(), c.label(), c.target(),
          c.workload(), c.clients(), c.rate(), seconds, stats.total(), stats.errors(), extras);
    } finally {
      running = false;
      if (workload != null) {
        try {
          workload.close();
        } catch (RuntimeException e) {
          say("teardown: " + LatencyStats.kind(e));
        }
      }
      for (Target t : targets) {
        t.close();
      }
      floodTargets.forEach(Target::close);
    }
  }

  private boolean running() {
    return running;
  }

  /** Warm-up, then the measured window, one progress line a second; returns the measured seconds. */
  private double measure(LatencyStats stats, ServerLoad load, long start) throws InterruptedException {
    long warmEnd = start + c.warmup().toNanos();
    long end = warmEnd + c.duration().toNanos();
    long measuredFrom = 0;
    long tickStart = start;
    while (true) {
      long now = System.nanoTime();
      if (measuredFrom == 0 && now >= warmEnd) {
        stats.startMeasuring();
        if (overload != null) {
          overload.startMeasuring();
        }
        load.start();
        measuredFrom = tickStart = now;
        generatorCpuFrom = processCpuNanos();
        continue;
      }
      if (measuredFrom != 0 && now >= end) {
        break;
      }
      long wake = Math.min(tickStart + 1_000_000_000L, measuredFrom == 0 ? warmEnd : end);
      Thread.sleep(Math.max(1, (wake - now + 999_999) / 1_000_000));
      long t = System.nanoTime();
      if (t - tickStart >= 1_000_000_000L) {
        Histogram h = stats.tick();
        load.sample();
        report(h, (t - tickStart) / 1e9, (t - start) / 1e9, measuredFrom != 0, stats.errorCount());
        tickStart = t;
      }
    }
    stats.tick();
    double seconds = (System.nanoTime() - measuredFrom) / 1e9;
    generatorCores = (processCpuNanos() - generatorCpuFrom) / 1e9 / seconds;
    stats.stopMeasuring();
    if (overload != null) {
      overload.stopMeasuring();
    }
    return seconds;
  }

  /** CPU time of this load-generator JVM, all threads, in ns. */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private void report(Histogram h, double interval, double elapsed, boolean measuring, long errors) {
    if (progress != null) {
      progress.printf(Locale.ROOT, "[bench %s %s c=%d] %5.1fs %s %8.0f ops/s p50 %.2f ms p99 %.2f ms errors %d%n",
          c.label(), c.workload(), c.clients(), elapsed, measuring ? "measuring" : "warm-up  ",
          h.getTotalCount() / interval, h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(99) / 1e6, errors);
      progress.flush();
    }
  }

  private static Thread daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private void say(String line) {
    if (progress != null) {
      progress.println("[bench " + c.label() + "] " + line);
      progress.flush();
    }
  }
}
