package io.regent.cli.bench;

import io.regent.bench.load.BenchRun;
import io.regent.bench.load.BenchSession;
import io.regent.bench.load.ClientTls;
import io.regent.cli.settings.DurationConverter;
import java.nio.file.Path;
import java.time.Duration;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code regent bench}: a load generator for Regent and, with the same semantics, etcd. */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Measures a Regent, etcd or bare-Ratis cluster: throughput, latency percentiles (HdrHistogram) "
            + "and errors.",
        "Workloads: campaign (each system's idiomatic election on the client's own name, timed whole: Regent "
            + "campaign with a TTL + resign-and-revoke, 2 log entries; etcd grant + txn + txn + revoke; bare Ratis "
            + "2 writes), campaign4 (grant + campaign + resign, then an untimed revoke), campaign-all (grant + take 4 "
            + "names at once: Regent CampaignAll, etcd one txn of 4 keys + revoke), keepalive (hold "
            + "--leases leases, renewing each every TTL/3; reports spurious expiries), leader-read (linearizable "
            + "reads of a held name), handover (all clients queue for one name; time from resign to the next "
            + "holder's grant), fresh-token (holders ask for new tokens), rebalance (Regent only: --members "
            + "members share an ownership group of --partitions partitions; a member joins, one leaves, one "
            + "crashes; per event the time to a stable assignment, the log entries, the partitions moved and "
            + "the fan-out to the members' Watch streams), overload (keepalive while --flood-clients more clients "
            + "flood reads and campaigns, closed loop or at --rate, and one well-behaved client reads every 10 ms; "
            + "reports the flood's refusals and their latency and the well-behaved reads' latency).",
        "--target ratis: scripts/ratis-cluster.sh's nodes (a trivial state machine under Regent's Ratis "
            + "settings); each Regent log entry is one write there, a leader read a linearizable ReadIndex read.",
        "Closed loop unless --rate: then open loop, latency counted from each request's due time "
            + "(coordinated omission corrected). Progress once a second on stderr; the result on stdout.",
        "Exit 1 when a keepalive or overload run saw a spurious expiry."})
public final class BenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--target", defaultValue = "regent",
      description = "regent, regentstream, regentunary, etcd or ratis (default: ${DEFAULT-VALUE}); regent renews"
          + " leases due together in one KeepAliveMany call, regentstream one at a time on the client's keepalive"
          + " streams, regentunary one unary call each")
  String target;

  @Option(names = "--endpoints", paramLabel = "HOST:PORT[,...]",
      description = "API endpoints (default: $REGENT_ENDPOINTS or 127.0.0.1:7101; etcd: 127.0.0.1:2379; ratis: "
          + "the Raft addresses of n0,n1,n2, 127.0.0.1:23901,127.0.0.1:23902,127.0.0.1:23903)")
  String endpoints;

  @Option(names = "--workload", required = true, split = ",", paramLabel = "WORKLOAD[,WORKLOAD...]",
      description = "campaign, campaign4, campaign-all, keepalive, leader-read, handover, fresh-token or rebalance; several run "
          + "one after the other in this process, each at every --clients count")
  List<String> workloads;

  @Option(names = "--clients", defaultValue = "1", split = ",", paramLabel = "N[,N...]",
      description = "concurrent clients, each with its own connection; several: one point each (default: "
          + "${DEFAULT-VALUE})")
  List<Integer> clientCounts;

  @Option(names = "--settle", defaultValue = "0s", converter = DurationConverter.class,
      description = "before the points, load the target (first workload, most clients) in 10 s windows until "
          + "throughput improves by less than 3%% or this long has passed: the servers' JIT warm-up; the curve "
          + "goes into every result as settle_curve (default: ${DEFAULT-VALUE}, none)")
  Duration settle;

  @Option(names = "--settle-min", defaultValue = "0s", converter = DurationConverter.class,
      description = "with --settle: load at least this long before the 3%% rule may stop it (the method's fixed "
          + "warm-up, e.g. 180s; --settle then also runs at least this long) (default: ${DEFAULT-VALUE})")
  Duration settleMin;

  @Option(names = "--duration", defaultValue = "10s", converter = DurationConverter.class,
      description = "measured time (default: ${DEFAULT-VALUE})")
  Duration duration;

  @Option(names = "--warmup", defaultValue = "2s", converter = DurationConverter.class,
      description = "load before measuring, not counted (default: ${DEFAULT-VALUE})")
  Duration warmup;

  @Option(names = "--rate", defaultValue = "0", paramLabel = "OPS_PER_S",
      description = "open loop at this total rate (campaign, leader-read, fresh-token; overload: the flood's "
          + "offered calls per second); 0 = closed loop")
  double rate;

  @Option(names = "--leases", defaultValue = "10000", description = "keepalive, overload: leases held (default: ${DEFAULT-VALUE})")
  int leases;

  @Option(names = "--flood-clients", defaultValue = "256", paramLabel = "N",
      description = "overload: clients flooding reads and campaigns, each on its own connection; 0 for none, "
          + "the well-behaved reader's unloaded baseline (default: ${DEFAULT-VALUE})")
  int floodClients;

  @Option(names = "--cacert", paramLabel = "FILE",
      description = "regent targets: speak TLS, verifying the servers against this CA certificate (PEM), as the "
          + "client commands' --cacert (no $REGENT_CACERT here)")
  Path cacert;

  @Option(names = "--cert", paramLabel = "FILE",
      description = "client certificate (PEM) for mutual TLS: its CN is the identity of every client but the "
          + "overload flood's")
  Path cert;

  @Option(names = "--key", paramLabel = "FILE", description = "the --cert certificate's private key (PKCS#8 PEM)")
  Path key;

  @Option(names = "--flood-cert", paramLabel = "FILE",
      description = "overload: the flood's own client certificate, so that the per-identity quotas can shed it "
          + "and not the keepalive clients and the well-behaved reader (default: --cert)")
  Path floodCert;

  @Option(names = "--flood-key", paramLabel = "FILE", description = "the --flood-cert certificate's private key")
  Path floodKey;

  @Option(names = "--partitions", defaultValue = "10000",
      description = "rebalance: partitions of the group, 1..65536 (default: ${DEFAULT-VALUE})")
  int partitions;

  @Option(names = "--members", defaultValue = "100",
      description = "rebalance: members before the join, 3..10000 (default: ${DEFAULT-VALUE})")
  int members;

  @Option(names = "--ttl", defaultValue = "10s", split = ",", converter = DurationConverter.class,
      paramLabel = "TTL[,TTL...]",
      description = "TTL of every lease the benchmark grants; several: one point each, so a keepalive ladder "
          + "renews --leases x 3 / TTL per s at each (default: ${DEFAULT-VALUE})")
  List<Duration> ttls;

  @Option(names = "--pid-dir", paramLabel = "DIR",
      description = "report CPU and resident memory of the processes in DIR/*.pid (a cluster directory)")
  Path pidDir;

  @Option(names = "--tenant", defaultValue = BenchRun.DEFAULT_TENANT,
      description = "tenant of every name (TENANT/RUN/...) and lease of the run: on a cluster of several cells, the "
          + "cell they all sit in (docs/architecture.md §14) (default: ${DEFAULT-VALUE})")
  String tenant;

  @Option(names = "--label", description = "name of this configuration in the result (default: the target)")
  String label;

  @Option(names = "--quiet", description = "no progress line")
  boolean quiet;

  @Option(names = {"-w", "--write-out"}, defaultValue = "simple", description = "simple or json (default: ${DEFAULT-VALUE})")
  String output;

  @Override
  public Integer call() throws Exception {
    List<BenchRun.Config> points = points();
    PrintWriter progress = quiet ? null : spec.commandLine().getErr();
    List<Double> curve = List.of();
    if (!settle.isZero() || !settleMin.isZero()) {
      BenchRun.Config most = points.stream().filter(p -> p.workload().equals(points.get(0).workload()))
          .max(Comparator.comparingInt(BenchRun.Config::clients)).orElseThrow();
      curve = BenchSession.settle(most, Duration.ofSeconds(10), settleMin, settle, progress);
    }
    List<Double> settleCurve = curve;
    boolean[] spurious = {false};
    BenchSession.run(points, progress, result -> {
      if (!settleCurve.isEmpty()) {
        result.extras().put("settle_curve", settleCurve);
      }
      spec.commandLine().getOut().println("json".equals(output) ? result.json() : result.text());
      spec.commandLine().getOut().flush();
      spurious[0] |= result.extras().get("spurious_expiries") instanceof Long n && n > 0;
    });
    return spurious[0] ? 1 : 0;
  }

  /**
   * Every point (workload x TTL x clients, in that order), validated; usage errors as {@link ParameterException}.
   */
  List<BenchRun.Config> points() {
    List<BenchRun.Config> points = new ArrayList<>();
    for (String w : workloads) {
      for (Duration ttl : ttls) {
        for (int n : clientCounts) {
          points.add(config(w, n, ttl));
        }
      }
    }
    return points;
  }

  /** The first point (the only one with one workload, one TTL and one client count). */
  BenchRun.Config config() {
    return points().get(0);
  }

  private BenchRun.Config config(String workload, int clients, Duration ttl) {
    if (!List.of("regent", "regentstream", "regentunary", "etcd", "ratis").contains(target)) {
      throw usage("--target must be regent, regentstream, regentunary, etcd or ratis, not '" + target + "'");
    }
    if (workload.equals("rebalance") && !target.equals("regent")) {
      throw usage("--workload rebalance runs against --target regent only");
    }
    if (partitions < 1 || partitions > 65_536 || members < 3 || members > 10_000) {
      throw usage("--partitions must be within 1..65536 and --members within 3..10000");
    }
    if (target.equals("ratis") && List.of("handover", "keepalive", "overload", "campaign-all").contains(workload)) {
      throw usage("--target ratis runs campaign, campaign4, leader-read and fresh-token only");
    }
    if (floodClients < (workload.equals("overload") ? 0 : 1) || floodClients > 4096) {
      throw usage("--flood-clients must be within 1..4096 (0, no flood, for --workload overload only)");
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
    if (rate < 0 || (rate > 0 && List.of("keepalive", "handover", "rebalance").contains(workload))) {
      throw usage("--rate must be >= 0 and applies to campaign, leader-read, fresh-token and overload only");
    }
    if (leases < 1) {
      throw usage("--leases must be positive");
    }
    if (ttl.toMillis() < 1) {
      throw usage("--ttl must be at least 1ms");
    }
    if (tenant.isEmpty() || tenant.contains("/") || tenant.contains("{") || tenant.contains("}")) {
      throw usage("--tenant must be non-empty, without '/', '{' or '}': '" + tenant + "'");
    }
    return new BenchRun.Config(target, endpointList(), workload, clients, duration, warmup, rate, leases,
        ttl.toMillis(), pidDir, label == null ? target : label, partitions, members, floodClients,
        tls(cert, key, "--cert and --key"), tls(floodCert == null ? cert : floodCert,
            floodCert == null ? key : floodKey, "--flood-cert and --flood-key"), tenant);
  }

  /** The TLS settings of a client with {@code certificate} and {@code privateKey} (both null: none). */
  private ClientTls tls(Path certificate, Path privateKey, String pair) {
    if ((certificate == null) != (privateKey == null) || (floodCert == null) != (floodKey == null)) {
      throw usage((floodCert == null) != (floodKey == null) ? "--flood-cert and --flood-key go together"
          : pair + " go together");
    }
    if ((certificate != null || floodCert != null) && cacert == null) {
      throw usage(pair.substring(0, pair.indexOf(' ')) + " needs --cacert (client certificates are for TLS)");
    }
    if (cacert != null && !target.startsWith("regent")) {
      throw usage("--cacert, --cert and --flood-cert are for the regent targets only");
    }
    return cacert == null ? ClientTls.NONE : new ClientTls(cacert, certificate, privateKey);
  }

  List<String> endpointList() {
    String raw = endpoints;
    if ((raw == null || raw.isBlank()) && target.startsWith("regent")) {
      raw = System.getenv("REGENT_ENDPOINTS");
    }
    if (raw == null || raw.isBlank()) {
      raw = switch (target) {
        case "regent", "regentstream", "regentunary" -> "127.0.0.1:7101";
        case "ratis" -> "127.0.0.1:23901,127.0.0.1:23902,127.0.0.1:23903";
        default -> "127.0.0.1:2379";
      };
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
