package io.regent.jepsen.nemesis;

import io.regent.jepsen.client.ClientPool;
import io.regent.jepsen.client.Recorder;
import io.regent.jepsen.cluster.Cluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Injects faults on a schedule, from one thread: a quiet 3–5 s, then a fault held for 5–10 s, then its
 * heal, and again. The faults are dealt in rounds: every enabled kind once per round, in a random order,
 * so that a run of n kinds × 11.5 s on average has injected each of them (drawing each fault at random,
 * one kind in 7 was left out of 10 draws one run in five). Every start and heal is recorded as a
 * {@code :nemesis :info} event ({@code :start-kill}, {@code :stop-kill}, ...). {@link #stopAndHeal()}
 * ends the schedule and heals the fault in progress.
 */
public final class NemesisScheduler {
  /** The fault names {@code --nemesis} accepts. */
  public static final List<String> FAULTS =
      List.of("kill", "pause", "partition", "client-pause", "leader", "leader-churn", "client-isolate",
          "pause-serving");

  private final List<Nemesis> enabled;
  private final List<String> notes = new ArrayList<>();
  private final Recorder recorder;
  private final Random random;
  private final CountDownLatch stop = new CountDownLatch(1);
  private final Thread thread;
  private final List<Throwable> errors = new ArrayList<>();

  /**
   * A schedule over the requested faults; those unavailable here are left out with a note.
   *
   * @param faults names from {@link #FAULTS}
   * @param links the clients' links to the nodes, for {@code client-isolate} (null: that fault is unavailable)
   */
  public NemesisScheduler(List<String> faults, Cluster cluster, ClientPool pool, ClientLinks links, long ttlMs,
      Recorder recorder, long seed) {
    this.recorder = recorder;
    this.random = new Random(seed);
    List<Nemesis> list = new ArrayList<>();
    for (String f : faults) {
      Nemesis n = switch (f) {
        case "kill" -> new KillNemesis(cluster);
        case "pause" -> new PauseNemesis(cluster);
        case "partition" -> new PartitionNemesis(cluster);
        case "client-pause" -> new ClientPauseNemesis(pool, ttlMs);
        case "leader" -> new LeaderNemesis(cluster);
        case "leader-churn" -> new LeaderChurnNemesis(cluster, LeaderChurnNemesis.IDLE_LEASES);
        case "client-isolate" -> links != null ? new ClientIsolateNemesis(pool, links) : null;
        case "pause-serving" -> new PauseServingNemesis(cluster);
        default -> throw new IllegalArgumentException("unknown nemesis '" + f + "'; one of " + FAULTS);
      };
      if (n == null) {
        notes.add("nemesis " + f + " unavailable: the clients do not go through per-client links");
        continue;
      }
      n.unavailable().ifPresentOrElse(why -> notes.add("nemesis " + f + " unavailable: " + why), () -> list.add(n));
    }
    this.enabled = List.copyOf(list);
    this.thread = new Thread(this::run, "jepsen-nemesis");
    this.thread.setDaemon(true);
  }

  /** Notes on faults that could not be enabled. */
  public List<String> notes() {
    return List.copyOf(notes);
  }

  /** The faults that will be injected. */
  public List<String> enabled() {
    return enabled.stream().map(Nemesis::name).toList();
  }

  /** Errors raised while injecting or healing (the run is then suspect). */
  public synchronized List<Throwable> errors() {
    return List.copyOf(errors);
  }

  /** Runs every enabled fault's {@link Nemesis#prepare()}, before the clients start. */
  public void prepare() throws Exception {
    for (Nemesis n : enabled) {
      long t0 = System.nanoTime();
      n.prepare();
      long ms = (System.nanoTime() - t0) / 1_000_000;
      if (ms > 1000) {
        System.err.println("jepsen: nemesis " + n.name() + " prepared in " + ms + " ms");
      }
    }
  }

  /** Starts the schedule (does nothing if no fault is enabled). */
  public void start() {
    if (!enabled.isEmpty()) {
      thread.start();
    }
  }

  /** Ends the schedule and heals the fault in progress; waits for the thread; closes the faults. */
  public void stopAndHeal() throws InterruptedException {
    stop.countDown();
    if (thread.isAlive()) {
      thread.join(60_000);
    }
    enabled.forEach(Nemesis::close);
  }

  private void run() {
    try {
      List<Nemesis> round = new ArrayList<>();
      while (!sleep(3000 + random.nextInt(2000))) {
        if (round.isEmpty()) {
          round.addAll(enabled);
          java.util.Collections.shuffle(round, random);
        }
        Nemesis n = round.remove(round.size() - 1);
        Object value;
        try {
          value = n.start(random);
        } catch (Exception e) {
          failed(n, e);
          continue;
        }
        recorder.nemesis("start-" + n.name(), value);
        sleep(n.durationMs(random));
        try {
          recorder.nemesis("stop-" + n.name(), n.stop());
        } catch (Exception e) {
          failed(n, e);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private synchronized void failed(Nemesis n, Exception e) {
    errors.add(e);
    recorder.nemesis("error-" + n.name(), String.valueOf(e.getMessage()));
  }

  /** Sleeps; true if the schedule was stopped meanwhile. */
  private boolean sleep(long ms) throws InterruptedException {
    return stop.await(ms, TimeUnit.MILLISECONDS);
  }
}
