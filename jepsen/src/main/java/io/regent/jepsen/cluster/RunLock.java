package io.regent.jepsen.cluster;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * A network slot held by one run: {@link #SLOTS} runs share a machine, each with its slot's namespace names,
 * links and subnet ({@link Netns}), and each removes its own slot's leftovers of crashed runs at start; a further
 * run waits for a slot ({@code /tmp/regent-jepsen-<slot>.lock}, OS file locks released even if the JVM dies).
 * Two slots let {@code mvn verify} run its Jepsen runs two at a time (docs/testing.md, "The slowest classes").
 */
public final class RunLock implements AutoCloseable {
  /** Runs that can share one machine. */
  public static final int SLOTS = 2;

  private final int slot;
  private final FileChannel channel;
  private final FileLock lock;

  private RunLock(int slot, FileChannel channel, FileLock lock) {
    this.slot = slot;
    this.channel = channel;
    this.lock = lock;
  }

  /** Whether the slot is still held: true until {@link #close}. */
  public boolean held() {
    return lock.isValid();
  }

  /** The slot held, 0 to {@link #SLOTS} - 1. */
  public int slot() {
    return slot;
  }

  /** Takes the first free slot, waiting at most {@code wait} for one. */
  public static RunLock acquire(Duration wait) throws IOException, InterruptedException {
    long end = System.nanoTime() + wait.toNanos();
    boolean told = false;
    while (true) {
      for (int s = 0; s < SLOTS; s++) {
        RunLock l = take(s);
        if (l != null) {
          return l;
        }
      }
      if (System.nanoTime() - end > 0) {
        throw new IOException("other Jepsen runs hold all " + SLOTS + " slots (" + file(0) + ", ...; waited "
            + wait.toSeconds() + " s)");
      }
      if (!told) {
        System.err.println("jepsen: waiting for another run to finish (" + SLOTS + " at a time)");
        told = true;
      }
      Thread.sleep(500); // polling a file lock held by another process: there is nothing to wait on
    }
  }

  /**
   * Takes slot {@code slot} if no run (of any process, this one included) holds it now, else null. While the
   * caller holds it, no other run can create anything in that slot, so what the caller sees there stays put.
   */
  public static RunLock tryAcquire(int slot) throws IOException {
    return take(slot);
  }

  private static RunLock take(int slot) throws IOException {
    FileChannel ch = FileChannel.open(file(slot), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock l;
    try {
      l = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      l = null; // this JVM holds it
    }
    if (l == null) {
      ch.close();
      return null;
    }
    return new RunLock(slot, ch, l);
  }

  private static Path file(int slot) {
    return Path.of(System.getProperty("java.io.tmpdir"), "regent-jepsen-" + slot + ".lock");
  }

  @Override
  public void close() throws IOException {
    lock.release();
    channel.close();
  }
}
