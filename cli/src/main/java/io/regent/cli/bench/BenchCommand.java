package io.regent.cli.bench;

import io.regent.bench.load.BenchResult;
import io.regent.bench.load.BenchRun;
import io.regent.cli.DurationConverter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code regent bench}: a load generator for Regent and, with the same semantics, etcd. */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Measures a Regent or etcd cluster: throughput, latency percentiles (HdrHistogram) and errors.",
        "Workloads: campaign (grant + campaign own name + resign, then an untimed revoke), keepalive (hold "
            + "--leases leases, renewing each every TTL/3; reports spurious expiries), leader-read (linearizable "
            + "reads of a held name), handover (all clients queue for one name; time from resign to the next "
            + "holder's grant), fresh-token (holders ask for new tokens).",
        "Closed loop unless --rate: then open loop, latency counted from each request's due time "
            + "(coordinated omission corrected). Progress once a second on stderr; the result on stdout.",
        "Exit 1 when a keepalive run saw a spurious expiry."})
public final class BenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--target", defaultValue = "regent", description = "regent or etcd (default: ${DEFAULT-VALUE})")
  String target;

  @Option(names = "--endpoints", paramLabel = "HOST:PORT[,...]",
      description = "API endpoints (default: $REGENT_ENDPOINTS or 127.0.0.1:7101; etcd: 127.0.0.1:2379)")
  String endpoints;

  @Option(names = "--workload", required = true,
      description = "campaign, keepalive, leader-read, handover or fresh-token")
  String workload;

  @Option(names = "--clients", defaultValue = "1", description = "concurrent clients, each with its own "
      + "connection (default: ${DEFAULT-VALUE})")
  int clients;

  @Option(names = "--duration", defaultValue = "10s", converter = DurationConverter.class,
      description = "measured time (default: ${DEFAULT-VALUE})")
  Duration duration;

  @Option(names = "--warmup", defaultValue = "2s", converter = DurationConverter.class,
      description = "load before measuring, not counted (default: ${DEFAULT-VALUE})")
  Duration warmup;

  @Option(names = "--rate", defaultValue = "0", paramLabel = "OPS_PER_S",
      description = "open loop at this total rate (campaign, leader-read, fresh-token); 0 = closed loop")
  double rate;

  @Option(names = "--leases", defaultValue = "10000", description = "keepalive: leases held (default: ${DEFAULT-VALUE})")
  int leases;

  @Option(names = "--ttl", defaultValue = "10s", converter = DurationConverter.class,
      description = "TTL of every lease the benchmark grants (default: ${DEFAULT-VALUE})")
  Duration ttl;

  @Option(names = "--pid-dir", paramLabel = "DIR",
      description = "report CPU and resident memory of the processes in DIR/*.pid (a cluster directory)")
  Path pidDir;

  @Option(names = "--label", description = "name of this configuration in the result (default: the target)")
  String label;

  @Option(names = "--quiet", description = "no progress line")
  boolean quiet;

  @Option(names = {"-w", "--write-out"}, defaultValue = "simple", description = "simple or json (default: ${DEFAULT-VALUE})")
  String output;

  @Override
  public Integer call() throws Exception {
    BenchRun.Config config = config();
    BenchResult result = new BenchRun(config, quiet ? null : spec.commandLine().getErr()).run();
    spec.commandLine().getOut().println("json".equals(output) ? result.json() : result.text());
    Object spurious = result.extras().get("spurious_expiries");
    return spurious instanceof Long n && n > 0 ? 1 : 0;
  }

  /** Validates the options into a run configuration; usage errors as {@link ParameterException}. */
  BenchRun.Config config() {
    if (!target.equals("regent") && !target.equals("etcd")) {
      throw usage("--target must be regent or etcd, not '" + target + "'");
    }
    if (!BenchRun.WORKLOADS.contains(workload)) {
      throw usage("--workload must be one of " + BenchRun.WORKLOADS + ", not '" + workload + "'");
    }
    if (!output.equals("simple") && !output.equals("json")) {
      throw usage("-w must be simple or json");
    }
    if (clients < 1 || clients > 4096) {
      throw usage("--clients must be within 1..4096");
    }
    if (duration.isZero() || warmup.isNegative()) {
      throw usage("--duration must be positive");
    }
    if (rate < 0 || (rate > 0 && (workload.equals("keepalive") || workload.equals("handover")))) {
      throw usage("--rate must be >= 0 and applies to campaign, leader-read and fresh-token only");
    }
    if (leases < 1) {
      throw usage("--leases must be positive");
    }
    return new BenchRun.Config(target, endpointList(), workload, clients, duration, warmup, rate, leases,
        ttl.toMillis(), pidDir, label == null ? target : label);
  }

  List<String> endpointList() {
    String raw = endpoints;
    if ((raw == null || raw.isBlank()) && target.equals("regent")) {
      raw = System.getenv("REGENT_ENDPOINTS");
    }
    if (raw == null || raw.isBlank()) {
      raw = target.equals("regent") ? "127.0.0.1:7101" : "127.0.0.1:2379";
    }
    List<String> list = new ArrayList<>();
    for (String e : raw.split(",")) {
      String ep = e.trim();
      if (!ep.matches("[^:\\s]+:\\d{1,5}")) {
        throw usage("invalid endpoint '" + ep + "': expected host:port");
      }
      list.add(ep);
    }
    return list;
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
