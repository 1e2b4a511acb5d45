package io.regent.server.cluster;

import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.regent.api.v1.LeaseGrantRequest;
import io.regent.api.v1.LeaseGrpc;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Waits until a cluster writes entries of version 3 (docs/operations.md "Upgrades"): a node does once every voter
 * has published its timing with the version it applies, a few seconds after the cluster starts. Probed from outside:
 * a grant sent twice with one request id is answered with one lease.
 */
final class RequestIdsWritten {
  /** TTL of the probes' leases, ms: long, so that no probe lease expires during a test that compares states. */
  private static final long PROBE_TTL_MS = 3_600_000;

  private RequestIdsWritten() {
  }

  /** Returns once {@code cluster}'s leader stores request ids; fails after 30 s. */
  static void in(LocalCluster cluster) {
    await("the cluster writes request ids").atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
      String id = UUID.randomUUID().toString();
      return grant(cluster, id) == grant(cluster, id);
    });
  }

  /** A grant with request id {@code id}, sent to the current leader; its lease id. */
  static long grant(LocalCluster cluster, String id) {
    ManagedChannel ch = ManagedChannelBuilder.forTarget(cluster.endpoint(cluster.awaitLeader())).usePlaintext().build();
    try {
      return LeaseGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS)
          .grant(LeaseGrantRequest.newBuilder().setTtlMs(PROBE_TTL_MS).setRequestId(id).build()).getId();
    } finally {
      ch.shutdownNow();
    }
  }
}
