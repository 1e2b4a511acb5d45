package io.regent.jepsen.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * {@code --concurrency N} slots, each a thread that runs one logical process at a time. Slot {@code s}
 * starts with process {@code s}; when its process retires (an {@code :info} op) the slot continues
 * with process {@code s + N}, then {@code s + 2N}, ..., each with a new client (Jepsen's numbering).
 *
 * <p>Lifecycle: {@link #start()}; {@link #stopSteps()} makes every slot finish its current step and
 * park; {@link #closeSessions()} then lets them close their sessions (resign what they hold) and exit.
 */
public final class ClientPool {
  /** What a slot runs for each of its processes. */
  public interface Session {
    /** One step (usually one operation); returns how long to wait before the next, ms. */
    long step() throws InterruptedException;

    /** True while the process believes it holds a name (the client-pause nemesis prefers these). */
    boolean holding();

    /** Ends the process: records the end of any belief, resigns best-effort. */
    void close();
  }

  private final int concurrency;
  private final IntFunction<List<String>> endpoints;
  private final Recorder recorder;
  private final Duration opTimeout;
  private final long seed;
  private final Function<ClientProcess, Session> sessions;
  private final List<Slot> slots = new ArrayList<>();
  private final CountDownLatch closeNow = new CountDownLatch(1);
  private final List<Throwable> crashes = java.util.Collections.synchronizedList(new ArrayList<>());
  private volatile boolean stepping = true;

  /** A pool; nothing runs until {@link #start()}. */
  public ClientPool(int concurrency, List<String> endpoints, Recorder recorder, Duration opTimeout,
      long seed, Function<ClientProcess, Session> sessions) {
    this(concurrency, slot -> endpoints, recorder, opTimeout, seed, sessions);
  }

  /**
   * A pool whose slot {@code s} reaches the nodes through {@code endpointsOfSlot.apply(s)} (one endpoint per
   * node, in node order: the {@code client-isolate} nemesis gives each slot links of its own).
   */
  public ClientPool(int concurrency, IntFunction<List<String>> endpointsOfSlot, Recorder recorder,
      Duration opTimeout, long seed, Function<ClientProcess, Session> sessions) {
    this.concurrency = concurrency;
    this.endpoints = endpointsOfSlot;
    this.recorder = recorder;
    this.opTimeout = opTimeout;
    this.seed = seed;
    this.sessions = sessions;
    for (int s = 0; s < concurrency; s++) {
      slots.add(new Slot(s));
    }
  }

  /** Starts every slot. */
  public void start() {
    slots.forEach(s -> s.thread.start());
  }

  /** The slots' pause gates, in slot order. */
  public List<PauseGate> gates() {
    return slots.stream().map(s -> s.gate).toList();
  }

  /** True if slot {@code i}'s current process holds a name. */
  public boolean holding(int i) {
    Session s = slots.get(i).session;
    return s != null && s.holding();
  }

  /** Unexpected exceptions that ended a slot (a bug in a workload: the run is then not trusted). */
  public List<Throwable> crashes() {
    return List.copyOf(crashes);
  }

  /** Number of slots. */
  public int size() {
    return concurrency;
  }

  /** Makes every slot stop after its current step (waits at most {@code wait}). */
  public void stopSteps(Duration wait) throws InterruptedException {
    stepping = false;
    slots.forEach(s -> s.gate.open());
    long end = System.nanoTime() + wait.toNanos();
    for (Slot s : slots) {
      s.parked.await(Math.max(0, end - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
    }
  }

  /** Lets the parked slots close their sessions, and waits for them. */
  public void closeSessions(Duration wait) throws InterruptedException {
    stepping = false;
    closeNow.countDown();
    long end = System.nanoTime() + wait.toNanos();
    for (Slot s : slots) {
      s.thread.join(Math.max(1, (end - System.nanoTime()) / 1_000_000));
      if (s.thread.isAlive()) {
        s.thread.interrupt();
      }
    }
  }

  private final class Slot implements Runnable {
    private final int index;
    private final PauseGate gate = new PauseGate();
    private final Thread thread;
    private final CountDownLatch parked = new CountDownLatch(1);
    private volatile Session session;

    Slot(int index) {
      this.index = index;
      this.thread = new Thread(this, "jepsen-client-" + index);
      this.thread.setDaemon(true);
    }

    @Override
    public void run() {
      long pid = index;
      Random random = new Random(seed * 31 + index);
      try {
        while (stepping) {
          List<String> rotated = new ArrayList<>(endpoints.apply(index));
          java.util.Collections.rotate(rotated, -(int) (pid % rotated.size()));
          ClientProcess p = new ClientProcess(pid, rotated, gate, recorder, opTimeout, random);
          Session s = sessions.apply(p);
          session = s;
          try {
            while (stepping && !p.retired()) {
              long pause = s.step();
              if (pause > 0 && stepping && !p.retired()) {
                Thread.sleep(pause);
              }
            }
            if (!p.retired()) {
              parked.countDown();
              closeNow.await();
            }
            s.close();
          } finally {
            session = null;
            p.close();
          }
          pid += concurrency;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        crashes.add(e);
        System.err.println("jepsen: client slot " + index + " crashed: " + e);
        e.printStackTrace();
      } finally {
        parked.countDown();
      }
    }
  }
}
