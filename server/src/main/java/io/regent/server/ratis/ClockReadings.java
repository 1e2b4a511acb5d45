package io.regent.server.ratis;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * This node's side of the clock probe (docs/architecture.md §8.1, "clock rates"): a Ratis stale read carrying
 * {@link #PROBE} is answered with this process's boot id and its monotonic clock reading, 16 bytes; anything else
 * is refused. {@link ClockProber} asks.
 */
public final class ClockReadings {
  /** The probe's content. */
  static final ByteString PROBE = ByteString.copyFromUtf8("regent-clock-probe");

  /** A reply: the answering process's boot id and its monotonic reading, ns. */
  record Reading(long boot, long nanos) {
  }

  private final long boot = ThreadLocalRandom.current().nextLong();
  private volatile LongSupplier clock;

  /** @param clock the monotonic clock this node reports, ns ({@code System::nanoTime}) */
  public ClockReadings(LongSupplier clock) {
    this.clock = clock;
  }

  /**
   * Reports {@code clock} from now on: tests run a node "at half speed" this way. The new clock must continue the
   * old one's readings (no jump back), or the peers count it as a restart.
   */
  public void report(LongSupplier clock) {
    this.clock = clock;
  }

  /** Answers one stale read: fails with IllegalArgumentException when it is not a clock probe. */
  public CompletableFuture<Message> answer(Message request) {
    if (!request.getContent().equals(PROBE)) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("only clock probes are answered by stale"
          + " reads here"));
    }
    ByteBuffer b = ByteBuffer.allocate(16).putLong(boot).putLong(clock.getAsLong());
    return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(b.array())));
  }

  /** Decodes a reply; fails with IllegalArgumentException when it is not 16 bytes. */
  static Reading decode(Message reply) {
    ByteString content = reply.getContent();
    if (content.size() != 16) {
      throw new IllegalArgumentException("a clock probe reply has 16 bytes, not " + content.size());
    }
    ByteBuffer b = content.asReadOnlyByteBuffer();
    return new Reading(b.getLong(), b.getLong());
  }
}
