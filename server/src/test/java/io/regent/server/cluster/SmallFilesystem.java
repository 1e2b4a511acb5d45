package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A tmpfs of a few MiB mounted on a test's directory, to fill up: a node's data directory on it runs out of space
 * when the test says so. Mounting needs root: the suite runs as root in CI ({@code .ci/run}), so there the test
 * runs, and a mount that fails there fails the test loudly; only a developer's run as another user skips it, with
 * the reason in the assumption's message.
 */
final class SmallFilesystem implements AutoCloseable {
  private final Path mountPoint;
  private final Path filler;

  private SmallFilesystem(Path mountPoint) {
    this.mountPoint = mountPoint;
    this.filler = mountPoint.resolve("filler");
  }

  /**
   * Mounts a tmpfs of {@code mebibytes} MiB on {@code mountPoint} (created when absent).
   *
   * @throws org.opentest4j.TestAbortedException when the test JVM does not run as root (the only skip)
   * @throws AssertionError when the mount fails as root
   */
  static SmallFilesystem mount(Path mountPoint, int mebibytes) throws IOException, InterruptedException {
    assumeTrue(new UnixSystem().getUid() == 0, "mounting a tmpfs needs root (CI runs the suite as root; "
        + "run as root to run this test)");
    Files.createDirectories(mountPoint);
    run("mount", "-t", "tmpfs", "-o", "size=" + mebibytes + "m", "tmpfs", mountPoint.toString());
    return new SmallFilesystem(mountPoint);
  }

  /** The mounted directory. */
  Path root() {
    return mountPoint;
  }

  /** Bytes still free for an ordinary user of the filesystem. */
  long usableBytes() throws IOException {
    return Files.getFileStore(mountPoint).getUsableSpace();
  }

  /** Writes a filler file until the filesystem refuses a single byte more (ENOSPC). */
  void fill() throws IOException {
    try (OutputStream out = Files.newOutputStream(filler)) {
      for (int chunk = 1 << 20; chunk > 0; chunk /= 16) {
        byte[] bytes = new byte[chunk];
        try {
          while (true) {
            out.write(bytes);
          }
        } catch (IOException full) {
          // smaller chunks next, down to one byte: the last pages go too
        }
      }
    } catch (IOException full) {
      // the close's flush found no space either: what was written stays
    }
    assertThat(usableBytes()).as("free bytes on the filled " + mountPoint).isLessThan(64 * 1024);
  }

  /** Deletes the filler file: the space is back. */
  void free() throws IOException {
    Files.deleteIfExists(filler);
  }

  /** Unmounts (lazily: a process that still holds a file open cannot keep the mount). */
  @Override
  public void close() throws IOException, InterruptedException {
    run("umount", "-l", mountPoint.toString());
  }

  private static void run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    int code = p.waitFor();
    assertThat(code).as(String.join(" ", command) + " failed: " + out).isZero();
  }
}
