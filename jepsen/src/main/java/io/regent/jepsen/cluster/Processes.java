package io.regent.jepsen.cluster;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The last line of cleanup: every server process a run starts is registered here, as is every
 * cleanup action (removing the namespaces), and one JVM shutdown hook kills those processes (by their
 * own handles, never by name) and runs those actions if the run did not get to do it itself (Ctrl-C,
 * a crash, an aborted test).
 */
public final class Processes {
  private static final Set<ProcessHandle> LIVE = new LinkedHashSet<>();
  private static final List<Runnable> ACTIONS = new ArrayList<>();
  private static final List<ProcessHandle> STARTED = new ArrayList<>();
  private static boolean hooked;

  private Processes() {
  }

  /** Tracks a started process. */
  public static synchronized void register(ProcessHandle p) {
    hook();
    LIVE.add(p);
    STARTED.add(p);
  }

  /** Every process started in this JVM so far (for tests: none may outlive its run). */
  public static synchronized List<ProcessHandle> started() {
    return List.copyOf(STARTED);
  }

  /** Stops tracking a process that is gone. */
  public static synchronized void unregister(ProcessHandle p) {
    LIVE.remove(p);
  }

  /** Adds a cleanup action run at JVM exit unless {@link #removeAction} took it off first. */
  public static synchronized void addAction(Runnable action) {
    hook();
    ACTIONS.add(action);
  }

  /** Removes a cleanup action (the run did it itself). */
  public static synchronized void removeAction(Runnable action) {
    ACTIONS.remove(action);
  }

  /** Kills every tracked process now, then runs and clears the pending actions. */
  public static void killAll() {
    List<ProcessHandle> procs;
    List<Runnable> actions;
    synchronized (Processes.class) {
      procs = new ArrayList<>(LIVE);
      actions = new ArrayList<>(ACTIONS);
      LIVE.clear();
      ACTIONS.clear();
    }
    for (ProcessHandle p : procs) {
      p.destroyForcibly();
    }
    for (ProcessHandle p : procs) {
      try {
        p.onExit().get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (java.util.concurrent.ExecutionException e) {
        // onExit never fails; nothing to wait for
      }
    }
    for (Runnable r : actions) {
      try {
        r.run();
      } catch (RuntimeException e) {
        System.err.println("jepsen cleanup: " + e);
      }
    }
  }

  private static void hook() {
    if (!hooked) {
      hooked = true;
      Runtime.getRuntime().addShutdownHook(new Thread(Processes::killAll, "jepsen-cleanup"));
    }
  }
}
