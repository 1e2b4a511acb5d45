package io.regent.statemachine.apply;

import com.google.protobuf.InvalidProtocolBufferException;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.LogEntryOrBuilder;

/**
 * Encodes and decodes Regent log entries, and names their format versions (docs/operations.md
 * "Upgrades"). A node writes a version only when every voter of the current configuration publishes that it
 * understands it ({@code MemberTiming.max_entry_version}); a replica that meets a version above
 * {@link #MAX_VERSION} stops applying ({@link UnknownEntryVersionException}) instead of skipping it.
 */
public final class EntryCodec {
  /** One operation, without request id or attempt: what every build applies. */
  public static final int VERSION = 1;
  /** A batch entry ({@code LogEntry.batch}, docs/architecture.md §2.6) whose operations are each of version 1. */
  public static final int BATCH_VERSION = 2;
  /**
   * Request ids and attempts (docs/api.md "Request ids"): a single entry of version 3 may carry
   * {@code request_id}, {@code request_digest} and the {@code attempt} of Campaign, CampaignAll, Withdraw and Resign; a batch of
   * version 3 holds operations of version 3.
   */
  public static final int REQUEST_ID_VERSION = 3;
  /**
   * Attempts apply once (docs/api.md "Attempts"): a Campaign with a lease, or a CampaignAll, of version 4 applies
   * once per attempt, and a Withdraw or Resign of version 4 closes its attempt to any copy of that campaign still to
   * come ({@link AttemptRule}); and a re-send whose record may have been pruned is refused
   * ({@code request_seen_index}, {@link RequestRule}). Version 3 applied every copy, so a copy committing after its
   * own attempt's cleanup (a Ratis re-send, a re-send through a replaced client) brought the candidacy back with
   * nobody waiting on it.
   */
  public static final int ATTEMPT_ID_VERSION = 4;
  /**
   * etcd's KV on the etcd port (docs/migrating.md "etcd's KV"): {@code kv_put}, {@code kv_delete_range},
   * {@code kv_txn} and {@code kv_compact}, each alone in an entry of this version (with a request id or not). A
   * batch of version 5 holds operations of version 1, 3 or 4, as one of version 4 does.
   */
  public static final int KV_VERSION = 5;
  /** The highest version this build applies, which it publishes as its own. */
  public static final int MAX_VERSION = KV_VERSION;

  private EntryCodec() {
  }

  /**
   * Stamps the format version on {@code entry} (and on a batch's operations) for a cluster whose voters all
   * understand {@code writable} (at least 1), and serializes it. Below version 3 the request id, digest and
   * attempts are left out: a replica that does not know them would apply the entry without them, differently.
   *
   * @throws IllegalArgumentException for a batch when {@code writable} is 1 (the proposer must not batch then), and
   *     for a KV operation when {@code writable} is below {@link #KV_VERSION} (the etcd port refuses those first)
   */
  public static byte[] encode(LogEntry.Builder entry, int writable) {
    int level = Math.min(writable, MAX_VERSION);
    if (isKv(entry)) {
      if (level < KV_VERSION) {
        throw new IllegalArgumentException("etcd's KV needs every voter on entry version " + KV_VERSION);
      }
      return entry.setVersion(KV_VERSION).build().toByteArray();
    }
    if (entry.hasBatch()) {
      if (level < BATCH_VERSION) {
        throw new IllegalArgumentException("a batch entry needs every voter on version " + BATCH_VERSION);
      }
      entry.getBatchBuilder().getEntriesBuilderList().forEach(op -> stamp(op, level));
      return entry.setVersion(level).build().toByteArray();
    }
    stamp(entry, level);
    return entry.build().toByteArray();
  }

  /**
   * The version of {@code op} as the cluster writes it at {@code level}: 4 when it names an attempt or a seen index
   * and the cluster writes 4, 3 when it carries what version 3 added, else 1 — each without the fields of versions
   * the cluster does not write.
   */
  private static void stamp(LogEntry.Builder op, int level) {
    if (level >= REQUEST_ID_VERSION) {
      if (level < ATTEMPT_ID_VERSION) {
        op.clearRequestSeenIndex();
      }
      op.setVersion(level >= ATTEMPT_ID_VERSION && hasVersion4Fields(op) ? ATTEMPT_ID_VERSION
          : hasVersion3Fields(op) ? REQUEST_ID_VERSION : VERSION);
      return;
    }
    op.clearRequestId().clearRequestDigest().clearRequestSeenIndex().setVersion(VERSION);
    switch (op.getCommandCase()) {
      case CAMPAIGN -> op.getCampaignBuilder().clearAttempt();
      case WITHDRAW -> op.getWithdrawBuilder().clearAttempt();
      case RESIGN -> op.getResignBuilder().clearAttempt();
      case CAMPAIGN_ALL -> op.getCampaignAllBuilder().clearAttempt();
      default -> {
      }
    }
  }

  private static boolean hasVersion4Fields(LogEntryOrBuilder op) {
    return !AttemptRule.attempt(op).isEmpty() || op.getRequestSeenIndex() > 0;
  }

  private static boolean hasVersion3Fields(LogEntryOrBuilder op) {
    return !op.getRequestId().isEmpty() || !op.getRequestDigest().isEmpty() || !AttemptRule.attempt(op).isEmpty();
  }

  /**
   * Whether {@code op} may be one operation of a batch entry: those a client's request proposes, whose lease
   * ids and tokens apply can keep unique inside a batch (grant, revoke, campaign, proclaim, resign, withdraw).
   * Timer entries (Expire, EndLockDelay, checkpoints), Confirm rounds, FreshToken, ownership groups, CampaignAll
   * and member records always go alone.
   */
  public static boolean batchable(LogEntryOrBuilder op) {
    return switch (op.getCommandCase()) {
      case GRANT, REVOKE, CAMPAIGN, PROCLAIM, RESIGN, WITHDRAW -> true;
      default -> false;
    };
  }

  /** Whether {@code op} is an operation on etcd's keyspace, which only an entry of {@link #KV_VERSION} carries. */
  public static boolean isKv(LogEntryOrBuilder op) {
    return switch (op.getCommandCase()) {
      case KV_PUT, KV_DELETE_RANGE, KV_TXN, KV_COMPACT -> true;
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
