package io.regent.cli.command.server;

import io.regent.cli.settings.DurationConverter;
import io.regent.server.limits.AdmissionLimits;
import io.regent.server.limits.ServerLimits;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The limits flags of {@code regent server} (see {@link ServerLimits}, whose defaults they show). Exceeding
 * a limit answers RESOURCE_EXHAUSTED; docs/security.md lists them.
 */
public final class LimitOptions {
  private static final ServerLimits D = ServerLimits.DEFAULTS;
  private static final AdmissionLimits A = D.admission();

  @Option(names = "--max-message-size", paramLabel = "BYTES",
      description = "largest inbound gRPC message (default: ${DEFAULT-VALUE})")
  int maxMessageBytes = D.maxMessageBytes();

  @Option(names = "--max-calls-per-connection", paramLabel = "N",
      description = "calls (incl. blocking campaigns and observe streams) one connection may have in progress "
          + "(default: ${DEFAULT-VALUE})")
  int maxCallsPerConnection = D.maxCallsPerConnection();

  @Option(names = "--max-leases-per-connection", paramLabel = "N",
      description = "live leases granted over one connection (default: ${DEFAULT-VALUE})")
  int maxLeasesPerConnection = D.maxLeasesPerConnection();

  @Option(names = "--max-leases", paramLabel = "N",
      description = "live leases in the whole cluster (default: ${DEFAULT-VALUE})")
  long maxLeases = D.maxLeases();

  @Option(names = "--max-names", paramLabel = "N",
      description = "names (elections and locks) in the whole cluster (default: ${DEFAULT-VALUE})")
  long maxNames = D.maxNames();

  @Option(names = "--max-candidates", paramLabel = "N",
      description = "waiting candidates of one name (default: ${DEFAULT-VALUE})")
  int maxCandidates = D.maxCandidates();

  @Option(names = "--max-ttl", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "largest lease TTL this node grants, at most 1h (default: 1h)")
  Duration maxTtl = Duration.ofMillis(D.maxTtlMs());

  @Option(names = "--max-request-rate", paramLabel = "PER_SECOND",
      description = "calls per second one connection may start, sustained (default: ${DEFAULT-VALUE})")
  double requestsPerSecond = D.requestsPerSecond();

  @Option(names = "--request-burst", paramLabel = "N",
      description = "calls one connection may start at once above that rate (default: ${DEFAULT-VALUE})")
  int requestBurst = D.requestBurst();

  @Option(names = "--max-observers", paramLabel = "N",
      description = "observe streams this node serves at once (default: ${DEFAULT-VALUE})")
  int maxObservers = D.maxObservers();

  @Option(names = "--observe-buffer", paramLabel = "EVENTS",
      description = "events a slow observer may fall behind before its stream is closed (it can resume with "
          + "--after) (default: ${DEFAULT-VALUE})")
  int observeBuffer = D.observeBuffer();

  @Option(names = "--max-bulk-calls", paramLabel = "N",
      description = "reads, grants, campaigns, locks and other bulk calls this node has in progress at once; beyond "
          + "it they are refused at once while keepalives are still served (default: ${DEFAULT-VALUE})")
  int maxBulkCalls = A.maxBulkCalls();

  @Option(names = "--max-bulk-calls-per-identity", paramLabel = "N",
      description = "bulk calls one client identity may have in progress on this node (default: ${DEFAULT-VALUE})")
  int maxBulkCallsPerIdentity = A.maxBulkCallsPerIdentity();

  @Option(names = "--identity-request-rate", paramLabel = "PER_SECOND",
      description = "calls per second one client identity may start on this node, keepalives not counted "
          + "(default: ${DEFAULT-VALUE})")
  double identityRequestsPerSecond = A.identityRequestsPerSecond();

  @Option(names = "--identity-request-burst", paramLabel = "N",
      description = "calls one client identity may start at once above that rate (default: ${DEFAULT-VALUE})")
  int identityRequestBurst = A.identityRequestBurst();

  @Option(names = "--max-leases-per-identity", paramLabel = "N",
      description = "live leases one client identity may be granted through this node (default: ${DEFAULT-VALUE})")
  int maxLeasesPerIdentity = A.maxLeasesPerIdentity();

  @Option(names = "--max-names-per-identity", paramLabel = "N",
      description = "names the leases one client identity was granted through this node may hold at once; a "
          + "campaign or lock beyond it is refused (default: ${DEFAULT-VALUE})")
  int maxNamesPerIdentity = A.maxNamesPerIdentity();

  @Option(names = "--max-streams-per-identity", paramLabel = "N",
      description = "observe, group watch and snapshot streams one client identity may have open on this node "
          + "(default: ${DEFAULT-VALUE})")
  int maxStreamsPerIdentity = A.maxStreamsPerIdentity();

  @Option(names = "--overload-retry-hint", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "back-off an overload refusal suggests to the client (default: 100ms)")
  Duration retryHint = Duration.ofMillis(A.retryAfterMs());

  @Option(names = "--unsafe-no-priority-lanes", hidden = true,
      description = "TESTS ONLY (negative control of the overload tests): keepalives wait and are shed with reads")
  boolean unsafeNoPriorityLanes;

  /**
   * The limits these flags describe.
   *
   * @throws IllegalArgumentException when one is out of range (the caller reports a usage error)
   */
  ServerLimits limits() {
    return new ServerLimits(maxMessageBytes, maxCallsPerConnection, maxLeasesPerConnection, maxLeases, maxNames,
        maxCandidates, maxTtl.toMillis(), requestsPerSecond, requestBurst, maxObservers, observeBuffer,
        new AdmissionLimits(maxBulkCalls, maxBulkCallsPerIdentity, identityRequestsPerSecond, identityRequestBurst,
            maxLeasesPerIdentity, maxNamesPerIdentity, maxStreamsPerIdentity, retryHint.toMillis(),
            !unsafeNoPriorityLanes));
  }
}
