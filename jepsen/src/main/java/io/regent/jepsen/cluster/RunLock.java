package io.regent.jepsen.cluster;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * One run at a time per machine: runs share the fixed namespace names and subnet, and each removes
 * leftovers of crashed runs at start, so a second run waits for the first ({@code
 * /tmp/regent-jepsen.lock}, an OS file lock released even if the JVM dies).
 */
public final class RunLock implements AutoCloseable {
  private static final Path FILE = Path.of(System.getProperty("java.io.tmpdir"), "regent-jepsen.lock");
  private final FileChannel channel;
  private final FileLock lock;

  private RunLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /** Takes the lock, waiting at most {@code wait}. */
  public static RunLock acquire(Duration wait) throws IOException, InterruptedException {
    FileChannel ch = FileChannel.open(FILE, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    long end = System.nanoTime() + wait.toNanos();
    boolean told = false;
    while (true) {
      FileLock l = ch.tryLock();
      if (l != null) {
        return new RunLock(ch, l);
      }
      if (System.nanoTime() - end > 0) {
        ch.close();
        throw new IOException("another Jepsen run holds " + FILE + " (waited " + wait.toSeconds() + " s)");
      }
      if (!told) {
        System.err.println("jepsen: waiting for another run to finish (" + FILE + ")");
        told = true;
      }
      Thread.sleep(500);
    }
  }

  @Override
  public void close() throws IOException {
    lock.release();
    channel.close();
  }
}
