package io.regent.server.cluster;

import com.google.common.util.concurrent.RateLimiter;
import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.CampaignResponse;
import io.regent.client.RegentClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Clients that keep granting leases and campaigning, each for a new name per round, and record what the cluster
 * acknowledged: every granted lease, and every name's holder token. Failed calls (UNAVAILABLE while the cluster
 * changes) are counted and the client goes on; a worker's tokens must increase round after round.
 */
final class CampaignLoad implements AutoCloseable {
  /** TTL of the load's leases: none expires during a test. */
  static final long TTL_MS = 3_600_000;
  /**
   * Rounds per second per worker. Paced, because a joining member must catch up while the load runs: on a
   * loaded 2-core machine an unpaced load grew the log faster than a freshly started JVM could follow, and
   * Ratis never finished staging it.
   */
  static final double ROUNDS_PER_SECOND = 10;

  final Map<Long, Boolean> grantedLeases = new ConcurrentHashMap<>();
  final Map<String, Long> electedTokens = new ConcurrentHashMap<>();
  final List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
  final AtomicInteger elections = new AtomicInteger();
  final AtomicInteger failures = new AtomicInteger();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();
  private final List<RegentClient> clients = new ArrayList<>();

  /** Starts one worker over {@code endpoints}, naming its names {@code prefix-<round>}. */
  void startWorker(String prefix, List<String> endpoints) {
    RegentClient c = RegentClient.connect(endpoints);
    clients.add(c);
    Thread t = new Thread(() -> run(prefix, c), "load-" + prefix);
    t.setDaemon(true);
    threads.add(t);
    t.start();
  }

  private void run(String prefix, RegentClient c) {
    long lastToken = 0;
    RateLimiter pace = RateLimiter.create(ROUNDS_PER_SECOND);
    for (int round = 0; !stop.get(); round++) {
      pace.acquire();
      try {
        long lease = c.leases().grant(TTL_MS);
        grantedLeases.put(lease, true);
        String name = prefix + "-" + round;
        CampaignResponse r = c.elections().tryCampaign(name, lease, ByteString.copyFromUtf8(name));
        if (!r.getElected()) {
          violations.add(name + " is new, yet not elected: " + r);
          continue;
        }
        long token = r.getLeader().getToken();
        electedTokens.put(name, token);
        if (token <= lastToken) {
          violations.add(name + " token " + token + " <= previous " + lastToken);
        }
        lastToken = token;
        elections.incrementAndGet();
      } catch (StatusRuntimeException e) {
        failures.incrementAndGet();
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    for (Thread t : threads) {
      t.join(60_000);
    }
    clients.forEach(RegentClient::close);
  }
}
