package io.regent.statemachine.apply;

import com.google.protobuf.InvalidProtocolBufferException;
import io.regent.statemachine.proto.LogEntry;

/** Encodes and decodes Regent log entries (format {@link #VERSION}). */
public final class EntryCodec {
  /** The log-entry format version this build writes and applies. */
  public static final int VERSION = 1;

  private EntryCodec() {
  }

  /** Stamps the current format version on {@code entry} and serializes it. */
  public static byte[] encode(LogEntry.Builder entry) {
    return entry.setVersion(VERSION).build().toByteArray();
  }

  /**
   * Parses a log entry; bytes that do not parse decode to an entry with no command, which apply rejects
   * deterministically instead of halting the replica.
   */
  public static LogEntry decode(byte[] bytes) {
    try {
      return LogEntry.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      return LogEntry.newBuilder().setVersion(VERSION).build();
    }
  }
}
