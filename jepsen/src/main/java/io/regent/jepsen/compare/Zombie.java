package io.regent.jepsen.compare;

import com.google.gson.JsonObject;
import io.regent.bench.load.Target;
import io.regent.fencing.FencingGuard;
import io.regent.fencing.FencingMode;
import io.regent.fencing.InMemoryFenceStore;
import io.regent.fencing.StaleTokenException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The zombie-leader scenario of {@code regent demo}, on every target through the same clients: A is
 * elected and writes to a fenced resource ({@link FencingGuard}, strict) with its token; A then stops
 * renewing, as in a GC pause longer than its TTL; B campaigns until elected, and writes; A wakes up,
 * still believing it leads, and writes {@value #ZOMBIE_WRITES} more times with its old token. Counts how many
 * of A's late writes the resource admitted and rejected (an unfenced resource would admit them all).
 */
final class Zombie {
  static final int ZOMBIE_WRITES = 3;
  static final long TTL_MS = 2000;
  private static final Duration CALL = Duration.ofSeconds(10);
  private static final String NAME = "compare-zombie";

  private Zombie() {
  }

  static JsonObject run(Deployment d, Duration limit) throws Exception {
    JsonObject o = new JsonObject();
    o.addProperty("load_avg", Load.now());
    o.addProperty("ttl_ms", TTL_MS);
    FencingGuard guard = new FencingGuard(new InMemoryFenceStore(), FencingMode.STRICT,
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
    AtomicLong admitted = new AtomicLong();
    try (Target a = Target.connect(d.kind(), d.endpoints(), 0); Target b = Target.connect(d.kind(), d.endpoints(), 1)) {
      long leaseA = Calls.within(CALL, () -> a.grant(TTL_MS));
      Target.Held heldA = Calls.within(CALL, () -> a.campaign(NAME, leaseA, "a"));
      guard.admit(NAME, heldA.token(), admitted::incrementAndGet);
      long paused = System.nanoTime();
      long leaseB = Calls.within(CALL, () -> b.grant(10 * TTL_MS));
      Target.Held heldB = null;
      long end = System.nanoTime() + limit.toNanos();
      while (heldB == null && System.nanoTime() < end) {
        try {
          heldB = Calls.within(CALL, () -> b.campaign(NAME, leaseB, "b"));
        } catch (IllegalStateException taken) { // etcd's campaign refuses a held name: try again
          Thread.sleep(50);
        }
      }
      if (heldB == null) {
        o.addProperty("error", "B was not elected within " + limit.toSeconds() + " s");
        return o;
      }
      o.addProperty("takeover_ms", (System.nanoTime() - paused) / 1_000_000);
      guard.admit(NAME, heldB.token(), admitted::incrementAndGet);
      int rejected = 0;
      for (int i = 0; i < ZOMBIE_WRITES; i++) {
        try {
          guard.admit(NAME, heldA.token(), admitted::incrementAndGet);
        } catch (StaleTokenException e) {
          rejected++;
        }
      }
      o.addProperty("token_a", heldA.token());
      o.addProperty("token_b", heldB.token());
      o.addProperty("zombie_writes", ZOMBIE_WRITES);
      o.addProperty("zombie_rejected", rejected);
      o.addProperty("zombie_admitted", ZOMBIE_WRITES - rejected);
      o.addProperty("admitted_total", admitted.get());
      Target.Held finalB = heldB;
      Calls.within(CALL, () -> {
        b.resign(finalB);
        b.revoke(leaseB);
        return null;
      });
    }
    return o;
  }
}
