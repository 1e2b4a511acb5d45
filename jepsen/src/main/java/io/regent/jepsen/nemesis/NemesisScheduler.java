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
 * Injects faults on a schedule, from one thread: a quiet 3–5 s, then a fault (chosen at random among
 * the enabled kinds) held for 5–10 s, then its heal, and again. Every start and heal is recorded as a
 * {@code :nemesis :info} event ({@code :start-kill}, {@code :stop-kill}, ...). {@link #stopAndHeal()}
 * ends the schedule and heals the fault in progress.
 */
public final class NemesisScheduler {
  /** The fault names {@code --nemesis} accepts. */
  public static final List<String> FAULTS = List.of("kill", "pause", "partition", "client-pause", "leader");

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
   */
  public NemesisScheduler(List<String> faults, Cluster cluster, ClientPool pool, long ttlMs,
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
        default -> throw new IllegalArgumentException("unknown nemesis '" + f + "'; one of " + FAULTS);
      };
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

  /** Starts the schedule (does nothing if no fault is enabled). */
  public void start() {
    if (!enabled.isEmpty()) {
      thread.start();
    }
  }

  /** Ends the schedule and heals the fault in progress; waits for the thread. */
  public void stopAndHeal() throws InterruptedException {
    stop.countDown();
    if (thread.isAlive()) {
      thread.join(60_000);
    }
  }

  private void run() {
    try {
      while (!sleep(3000 + random.nextInt(2000))) {
        Nemesis n = enabled.get(random.nextInt(enabled.size()));
        Object value;
        try {
          value = n.start(random);
        } catch (Exception e) {
          failed(n, e);
          continue;
        }
        recorder.nemesis("start-" + n.name(), value);
        sleep(5000 + random.nextInt(5000));
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
