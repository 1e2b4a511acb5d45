package io.regent.jepsen.workload;

import io.regent.jepsen.cluster.Processes;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code etcdctl lock NAME -- COMMAND} of a test process: etcd's own command line client (etcd 3.4's
 * {@code clientv3/concurrency.Mutex} over KV, with a session lease of {@code --ttl} seconds) against Regent's etcd
 * port. Once it holds NAME, etcdctl runs COMMAND with the lock's create revision (the fencing token) in
 * {@code $ETCD_LOCK_REV}; this COMMAND prints it ({@code locked REV}) and waits while etcdctl lives. Ending COMMAND
 * ends the hold:
 * etcdctl then deletes its lock key (Unlock) and exits. The test process, not the command, is the holder: it
 * believes it holds NAME from reading that line until it ends the command.
 */
final class EtcdctlLock implements AutoCloseable {
  private static final Pattern LOCKED = Pattern.compile("^locked (\\d+)$");
  /** How long etcdctl may take to unlock and exit once its command ended, before it is killed. */
  private static final Duration EXIT = Duration.ofSeconds(10);

  private final Process etcdctl;
  private final CompletableFuture<Long> locked = new CompletableFuture<>();
  private final StringBuilder output = new StringBuilder();

  private EtcdctlLock(Process etcdctl) {
    this.etcdctl = etcdctl;
    Thread reader = new Thread(this::read, "etcdctl-" + etcdctl.pid());
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code etcdctl lock} for {@code name} through {@code endpoints} (etcd's client balances over them) with
   * a session lease of {@code ttlSeconds}.
   *
   * @throws IOException when etcdctl cannot be started (not installed)
   */
  static EtcdctlLock start(List<String> endpoints, String name, int ttlSeconds) throws IOException {
    ProcessBuilder b = new ProcessBuilder("etcdctl", "--endpoints=" + String.join(",", endpoints),
        "--dial-timeout=2s", "lock", "--ttl=" + ttlSeconds, name, "--",
        // the command waits as long as etcdctl lives: one left by a crashed run ends with it
        "sh", "-c", "echo \"locked $ETCD_LOCK_REV\"; while kill -0 $PPID 2>/dev/null; do sleep 0.2; done")
        .redirectErrorStream(true);
    b.environment().put("ETCDCTL_API", "3");
    Process p = b.start();
    Processes.register(p.toHandle()); // killed at JVM exit if the run cannot end it (Ctrl-C, a crash)
    return new EtcdctlLock(p);
  }

  private void read() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(etcdctl.getInputStream(),
        StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        Matcher m = LOCKED.matcher(line.strip());
        if (m.matches()) {
          locked.complete(Long.parseLong(m.group(1)));
        } else {
          synchronized (output) {
            output.append(line).append('\n');
          }
        }
      }
    } catch (IOException e) {
      // the process ended under the reader: what it printed so far is in output
    } finally {
      locked.completeExceptionally(new IllegalStateException("etcdctl exited before it locked"));
    }
  }

  /** The lock's revision ({@code $ETCD_LOCK_REV}) once etcdctl holds it, or empty when it exited or the time passed. */
  OptionalLong awaitLocked(Duration timeout) throws InterruptedException {
    try {
      return OptionalLong.of(locked.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
    } catch (ExecutionException | TimeoutException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * Ends the hold or the wait for it with SIGTERM to etcdctl and its command: holding, etcdctl deletes its lock key
   * once the command ended; waiting, it deletes the key its own attempt put (Mutex.Lock on a cancelled context).
   * Waits for it to exit (at most 10 s), then ends whatever is left. True when it exited in that time, so that its
   * key is gone now rather than with its session lease's TTL.
   */
  boolean end() throws InterruptedException {
    etcdctl.descendants().forEach(ProcessHandle::destroy);
    etcdctl.destroy();
    boolean exited = etcdctl.waitFor(EXIT.toMillis(), TimeUnit.MILLISECONDS);
    close();
    return exited;
  }

  /** What etcdctl printed besides the {@code locked} line (its errors). */
  String output() {
    synchronized (output) {
      return output.toString().strip();
    }
  }

  /**
   * Ends etcdctl and its command at once (SIGKILL) and waits for etcdctl to be gone (at most 10 s): a key it did not
   * delete goes with its session lease's TTL.
   */
  @Override
  public void close() {
    etcdctl.descendants().forEach(ProcessHandle::destroyForcibly);
    etcdctl.destroyForcibly();
    try {
      etcdctl.waitFor(EXIT.toMillis(), TimeUnit.MILLISECONDS); // gone, not just signalled, when this returns
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Processes.unregister(etcdctl.toHandle());
  }
}
