package io.regent.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * CPU and resident memory of the servers under test, from {@code /proc}: the processes whose ids are in
 * {@code DIR/*.pid} (what {@code regent cluster up} and {@code scripts/etcd-cluster.sh} write).
 */
final class ServerLoad {
  /** Linux's USER_HZ: /proc reports CPU time in these ticks. */
  private static final double TICKS_PER_SECOND = 100.0;
  private final List<Long> pids;
  private long cpuTicksAtStart;
  private Map<String, Long> waitAtStart = Map.of();
  private long startNanos;
  private long maxRssKb;

  private ServerLoad(List<Long> pids) {
    this.pids = pids;
  }

  /** The servers listed in {@code dir}, or none when {@code dir} is null. */
  static ServerLoad of(Path dir) throws IOException {
    List<Long> pids = new ArrayList<>();
    if (dir != null) {
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".pid")).sorted().toList()) {
          pids.add(Long.parseLong(Files.readString(f).trim()));
        }
      }
    }
    return new ServerLoad(pids);
  }

  boolean any() {
    return !pids.isEmpty();
  }

  /** Starts the CPU measurement window. */
  synchronized void start() {
    cpuTicksAtStart = cpuTicks();
    waitAtStart = runQueueWait();
    startNanos = System.nanoTime();
    maxRssKb = 0;
    sample();
  }

  /** Samples resident memory (call about once a second). */
  synchronized void sample() {
    long rss = 0;
    for (long pid : pids) {
      rss += statusKb(pid, "VmRSS:");
    }
    maxRssKb = Math.max(maxRssKb, rss);
  }

  /** CPU time used by all servers since {@link #start()}, ms (in steps of 10 ms, Linux's ticks). */
  synchronized long cpuMs() {
    return Math.round((cpuTicks() - cpuTicksAtStart) * 1000 / TICKS_PER_SECOND);
  }

  /** CPU cores used on average by all servers since {@link #start()}. */
  synchronized double cores() {
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    return seconds <= 0 ? 0 : (cpuTicks() - cpuTicksAtStart) / TICKS_PER_SECOND / seconds;
  }

  /**
   * Time the servers' threads spent runnable but waiting for a CPU since {@link #start()}, per second (from
   * {@code /proc/PID/task/TID/schedstat}, per thread; threads that ended meanwhile are not counted). Well above
   * {@link #cores()}, the servers are starved of CPU rather than busy.
   */
  synchronized double runQueueWaitCores() {
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    long sum = 0;
    for (Map.Entry<String, Long> t : runQueueWait().entrySet()) {
      sum += t.getValue() - waitAtStart.getOrDefault(t.getKey(), 0L);
    }
    return seconds <= 0 ? 0 : sum / 1e9 / seconds;
  }

  /** Run-queue wait so far of every thread of every server, ns, by "pid/tid". */
  private Map<String, Long> runQueueWait() {
    Map<String, Long> waits = new HashMap<>();
    for (long pid : pids) {
      try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
        for (Path t : tasks.toList()) {
          try {
            waits.put(pid + "/" + t.getFileName(),
                Long.parseLong(Files.readString(t.resolve("schedstat")).trim().split(" ")[1]));
          } catch (IOException | RuntimeException e) {
            // the thread ended
          }
        }
      } catch (IOException | RuntimeException e) {
        // the process is gone
      }
    }
    return waits;
  }

  /** The largest sum of the servers' resident sets seen, MiB. */
  synchronized double maxRssMib() {
    return maxRssKb / 1024.0;
  }

  private long cpuTicks() {
    long sum = 0;
    for (long pid : pids) {
      try {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        // Fields after the parenthesised command: state is field 3; utime and stime are fields 14 and 15.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        sum += Long.parseLong(f[11]) + Long.parseLong(f[12]);
      } catch (IOException | RuntimeException e) {
        // the process is gone: it contributes nothing more
      }
    }
    return sum;
  }

  private static long statusKb(long pid, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // gone
    }
    return 0;
  }
}
