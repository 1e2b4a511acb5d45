package io.regent.jepsen.nemesis;

import io.regent.jepsen.client.ClientPool;
import io.regent.jepsen.client.PauseGate;
import java.util.List;
import java.util.Random;

/**
 * {@code client-pause}: stops one client (all its threads, at their next checkpoint: the GC pause of
 * the seed scenario) for longer than its lease TTL, so that its lease expires on the server and
 * another client may be elected while it sleeps. A client that holds a name is preferred. Value:
 * {@code [slot pause-ms held?]}.
 */
final class ClientPauseNemesis implements Nemesis {
  private final ClientPool pool;
  private final long ttlMs;
  private PauseGate paused;

  ClientPauseNemesis(ClientPool pool, long ttlMs) {
    this.pool = pool;
    this.ttlMs = ttlMs;
  }

  @Override
  public String name() {
    return "client-pause";
  }

  @Override
  public Object start(Random random) {
    Targets.Client target = Targets.clientPreferringHolder(pool, random);
    long ms = ttlMs * 3 / 2 + random.nextInt(1000);
    paused = pool.gates().get(target.slot());
    paused.pause(ms * 1_000_000L);
    return List.of((long) target.slot(), ms, target.held());
  }

  @Override
  public Object stop() {
    if (paused != null) {
      paused.open();
      paused = null;
    }
    return null;
  }
}
