package io.regent.jepsen.runner;

import io.regent.jepsen.cluster.Cluster;
import io.regent.jepsen.cluster.ClusterSpec;
import io.regent.jepsen.cluster.DataDirs;
import io.regent.jepsen.cluster.Probe;
import io.regent.jepsen.cluster.RunLock;
import io.regent.jepsen.cluster.ServerImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.Optional;
import io.regent.jepsen.report.Json;

/**
 * The frame of a run on one fresh cluster ({@link RestartRun}, {@link PauseCheck}, {@link OverloadRun}): a network
 * slot ({@link RunLock}), the jar's image (a private copy with its class-data archive, {@link ServerImage}), a
 * temporary data directory, the cluster healthy within {@link #START}, the run's own drive, a crash recorded as
 * {@code valid? unknown}, the data directory removed, and {@code results.json} written to the store directory.
 */
final class ClusterRun {
  /** How long a fresh cluster may take to answer on every node. */
  static final Duration START = Duration.ofSeconds(120);
  /** How long a run waits for a free network slot. */
  static final Duration SLOT_WAIT = Duration.ofMinutes(10);

  /** The cluster a run wants, from the jar's image, its store directory and data directory. */
  @FunctionalInterface
  interface Spec {
    ClusterSpec of(Path jar, Path store, Path data) throws IOException;
  }

  /** What a run does on its healthy cluster, filling {@code results} (the nodes' data are under {@code data}). */
  @FunctionalInterface
  interface Drive {
    void on(Cluster cluster, Path data, Map<String, Object> results) throws IOException, InterruptedException;
  }

  private ClusterRun() {
  }

  /** A new store directory {@code root/name/<timestamp>} for one run. */
  static Path storeDir(Path root, String name) throws IOException {
    return Files.createDirectories(root.resolve(name)
        .resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS"))));
  }

  /**
   * Runs {@code drive} on a cluster {@code spec} describes and writes {@code results} to {@code store/results.json};
   * returns {@code results}. A crash (the cluster not up in time, an I/O or runtime failure) sets {@code valid?} to
   * {@code unknown} and {@code explanation} to what happened; an interrupt is passed on.
   */
  static Map<String, Object> run(Path store, Path jarSource, Map<String, Object> results, Spec spec, Drive drive)
      throws IOException, InterruptedException {
    Path data = Files.createTempDirectory("regent-jepsen-");
    try (RunLock lock = RunLock.acquire(SLOT_WAIT)) {
      Path jar = ServerImage.of(jarSource);
      try (Cluster cluster = Cluster.start(spec.of(jar, store, data), lock)) {
        Optional<String> down = Probe.awaitHealthy(cluster, START, true);
        if (down.isPresent()) {
          throw new IllegalStateException("the cluster did not come up: " + down.get());
        }
        drive.on(cluster, data, results);
      }
    } catch (IOException | RuntimeException e) {
      results.put("valid?", "unknown");
      results.put("explanation", "crashed: " + e);
    } finally {
      DataDirs.delete(data);
    }
    Files.writeString(store.resolve("results.json"), Json.write(results));
    return results;
  }
}
