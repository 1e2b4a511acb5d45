package io.regent.jepsen.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The server jar a run's processes start from: a private copy, named by a hash of its bytes and of this JVM, with
 * a class-data-sharing archive of the classes a node loads up to serving (JDK 17's dynamic AppCDS,
 * {@code -XX:ArchiveClassesAtExit}, then {@code -XX:SharedArchiveFile}).
 *
 * <p>Why a copy: a concurrent build may rewrite {@code cli/target/regent.jar} under a running node or a restart.
 * Why named by its content and kept in {@code $TMPDIR/regent-jepsen-images/}: the JDK uses an archive only for
 * the jar path and file it was made from, so one copy and one archive serve every run of that jar (Maven's two
 * test JVMs, {@code regent compare}'s targets). Why the archive: a run starts and restarts nodes dozens of times on
 * two cores; a node started with it reached "serving" in 4.7–5.1 s against 6.3–8.0 s and used 40 % less CPU to
 * get there (3-node {@code cluster up}, 2026-12-07, docs/testing.md "JVM options"). The archive is made once per
 * image, by one node started and stopped on loopback; when that fails, nodes start without one, as before.
 */
public final class ServerImage {
  private static final String ROOT = "regent-jepsen-images";
  private static final String JAR = "regent.jar";
  private static final String ARCHIVE = "regent.jsa";
  /** A file whose time is the image's last use. */
  private static final String LAST_USED = "last-used";
  /** An image not used for this long is removed when another is made. */
  private static final Duration UNUSED = Duration.ofDays(1);
  private static final Duration TRAINING_START = Duration.ofSeconds(90);
  private static final Duration TRAINING_STOP = Duration.ofSeconds(60);
  /** What a node prints once it serves (RegentServer). */
  private static final String SERVING = "serving the API on";

  private ServerImage() {
  }

  /**
   * The image of {@code source}: its copy, made (with its archive) by the first caller on this machine and reused
   * by every later one, also across JVMs (a file lock beside it). Returns the copy's path; {@link #jvmOptions}
   * names its archive.
   *
   * @throws IOException when the copy cannot be made
   */
  public static Path of(Path source) throws IOException {
    return of(source, Path.of(System.getProperty("java.io.tmpdir"), ROOT));
  }

  /** {@link #of(Path)} with the images kept under {@code root}. */
  static synchronized Path of(Path source, Path root) throws IOException {
    Path dir = root.resolve(key(source));
    Files.createDirectories(dir);
    // The lock's file is never opened otherwise while it is held: closing any descriptor of a file releases the
    // process's POSIX locks on it (setting its time did, and two JVMs made one archive at once).
    try (FileChannel ch = FileChannel.open(dir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
         FileLock ignored = ch.lock()) {
      Path used = dir.resolve(LAST_USED);
      if (!Files.exists(used)) {
        Files.createFile(used);
      }
      Files.setLastModifiedTime(used, FileTime.from(Instant.now()));
      Path jar = dir.resolve(JAR);
      if (!Files.isRegularFile(jar)) {
        Path partial = dir.resolve(JAR + ".partial");
        Files.copy(source, partial, StandardCopyOption.REPLACE_EXISTING);
        Files.move(partial, jar, StandardCopyOption.ATOMIC_MOVE);
        pruneUnused(root, dir);
      }
      if (!Files.isRegularFile(dir.resolve(ARCHIVE)) && !Files.exists(dir.resolve(ARCHIVE + ".failed"))) {
        makeArchive(jar, dir);
      }
      return jar;
    }
  }

  /** {@code -XX:SharedArchiveFile=…} when {@code jar} is an image with an archive; else nothing. */
  public static List<String> jvmOptions(Path jar) {
    Path archive = jar.toAbsolutePath().resolveSibling(ARCHIVE);
    return Files.isRegularFile(archive) ? List.of("-XX:SharedArchiveFile=" + archive) : List.of();
  }

  private static String key(Path source) throws IOException {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      try (InputStream in = Files.newInputStream(source)) {
        byte[] buf = new byte[1 << 16];
        for (int n; (n = in.read(buf)) > 0; ) {
          sha.update(buf, 0, n);
        }
      }
      // An archive belongs to one JVM build as well as to one jar.
      sha.update((System.getProperty("java.home") + "\n" + System.getProperty("java.vm.version"))
          .getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(sha.digest(), 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is in every JDK", e);
    }
  }

  private static void pruneUnused(Path root, Path keep) throws IOException {
    Instant cutoff = Instant.now().minus(UNUSED);
    try (var dirs = Files.list(root)) {
      for (Path d : dirs.toList()) {
        Path used = d.resolve(LAST_USED);
        if (!d.equals(keep) && Files.isRegularFile(used)
            && Files.getLastModifiedTime(used).toInstant().isBefore(cutoff)) {
          DataDirs.delete(d);
        }
      }
    }
  }

  /**
   * Starts one node of a 1-node Raft cluster on loopback with {@code -XX:ArchiveClassesAtExit}, waits until it
   * serves, stops it (SIGTERM: the JVM writes the archive as it exits), and keeps the archive only if a JVM
   * started with {@code -Xshare:on} (which fails rather than run without it) maps it. A failure leaves a
   * {@code .failed} file with the reason, so that later runs do not try again.
   */
  private static void makeArchive(Path jar, Path dir) throws IOException {
    Path partial = dir.resolve(ARCHIVE + ".partial");
    Files.deleteIfExists(partial);
    Path data = Files.createTempDirectory("regent-jepsen-archive-");
    Optional<String> failure;
    try {
      failure = train(jar, partial, data, dir.resolve("training.log"));
      if (failure.isEmpty()) {
        failure = check(jar, partial, dir.resolve("check.log"));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure = Optional.of("interrupted");
    } finally {
      DataDirs.delete(data);
    }
    if (failure.isPresent()) {
      Files.deleteIfExists(partial);
      Files.writeString(dir.resolve(ARCHIVE + ".failed"), failure.get() + "\n");
    } else {
      Files.move(partial, dir.resolve(ARCHIVE), StandardCopyOption.ATOMIC_MOVE);
    }
  }

  private static Optional<String> train(Path jar, Path archive, Path data, Path log)
      throws IOException, InterruptedException {
    int[] ports = Cluster.freePorts(3);
    List<String> cmd = new ArrayList<>(List.of(java()));
    cmd.addAll(ClusterSpec.DEFAULT_JVM);
    cmd.addAll(List.of("-XX:ArchiveClassesAtExit=" + archive, "-jar", jar.toString(), "server", "--id", "n1",
        "--peers", "n1=127.0.0.1:" + ports[0], "--api-host", "127.0.0.1", "--api-port", Integer.toString(ports[1]),
        "--etcd-port", Integer.toString(ports[2]), "--data-dir", data.resolve("n1").toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    CountDownLatch servingOrGone = new CountDownLatch(1);
    AtomicBoolean serving = new AtomicBoolean();
    Thread drain = new Thread(() -> copyWatching(p.getInputStream(), log, serving, servingOrGone),
        "archive-training-log");
    drain.setDaemon(true);
    drain.start();
    try {
      if (!servingOrGone.await(TRAINING_START.toSeconds(), TimeUnit.SECONDS) || !serving.get()) {
        return Optional.of("the training node did not serve within " + TRAINING_START.toSeconds() + " s; see " + log);
      }
      p.destroy();
      if (!p.waitFor(TRAINING_STOP.toSeconds(), TimeUnit.SECONDS)) {
        return Optional.of("the training node did not stop within " + TRAINING_STOP.toSeconds() + " s");
      }
      return Files.isRegularFile(archive) ? Optional.empty()
          : Optional.of("the training node exited " + p.exitValue() + " without writing an archive; see " + log);
    } finally {
      p.destroyForcibly();
      p.waitFor();
      drain.join(TimeUnit.SECONDS.toMillis(5));
    }
  }

  /** Copies the node's output to {@code log}; opens {@code servingOrGone} when it serves or its output ends. */
  private static void copyWatching(InputStream in, Path log, AtomicBoolean serving, CountDownLatch servingOrGone) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
         var w = Files.newBufferedWriter(log)) {
      for (String line; (line = r.readLine()) != null; ) {
        w.write(line);
        w.newLine();
        if (line.contains(SERVING)) {
          w.flush();
          serving.set(true);
          servingOrGone.countDown();
        }
      }
    } catch (IOException e) {
      // The log cannot be written: the node's output ends here, as if it had exited.
    } finally {
      servingOrGone.countDown();
    }
  }

  private static Optional<String> check(Path jar, Path archive, Path log) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(java(), "-Xshare:on", "-XX:SharedArchiveFile=" + archive, "-jar", jar.toString(),
        "--version").redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      if (!p.waitFor(TRAINING_STOP.toSeconds(), TimeUnit.SECONDS)) {
        return Optional.of("`--version` with the archive did not end within " + TRAINING_STOP.toSeconds() + " s");
      }
      return p.exitValue() == 0 ? Optional.empty()
          : Optional.of("a JVM could not map the archive: " + Files.readString(log).strip());
    } finally {
      p.destroyForcibly();
    }
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
