package io.regent.statemachine.apply;

import com.google.protobuf.InvalidProtocolBufferException;
import io.regent.statemachine.proto.LogEntry;

/** Encodes and decodes Regent log entries (format {@link #VERSION}). */
public final class EntryCodec {
  /** The format version of an entry holding one operation: what this build writes for every single entry. */
  public static final int VERSION = 1;
  /**
   * The format version of a batch entry ({@code LogEntry.batch}, docs/architecture.md §2.6), whose operations are
   * each of {@link #VERSION}. A build that knows only version 1 refuses it: every node of a cluster must run a
   * build that knows version 2 before its leader proposes a batch.
   */
  public static final int BATCH_VERSION = 2;

  private EntryCodec() {
  }

  /** Stamps the format version on {@code entry} (and on a batch's operations) and serializes it. */
  public static byte[] encode(LogEntry.Builder entry) {
    if (entry.hasBatch()) {
      entry.getBatchBuilder().getEntriesBuilderList().forEach(op -> op.setVersion(VERSION));
      return entry.setVersion(BATCH_VERSION).build().toByteArray();
    }
    return entry.setVersion(VERSION).build().toByteArray();
  }

  /**
   * Whether {@code op} may be one operation of a batch entry: those a client's request proposes, whose lease
   * ids and tokens apply can keep unique inside a batch (grant, revoke, campaign, proclaim, resign, withdraw).
   * Timer entries (Expire, EndLockDelay, checkpoints), Confirm rounds, FreshToken, ownership groups, CampaignAll
   * and member records always go alone.
   */
  public static boolean batchable(io.regent.statemachine.proto.LogEntryOrBuilder op) {
    return switch (op.getCommandCase()) {
      case GRANT, REVOKE, CAMPAIGN, PROCLAIM, RESIGN, WITHDRAW -> true;
      default -> false;
    };
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
