package io.regent.statemachine.store;

import com.google.protobuf.InvalidProtocolBufferException;
import io.regent.statemachine.proto.KvEvent;
import io.regent.statemachine.proto.KvEvents;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.lmdbjava.CursorIterable;
import org.lmdbjava.Dbi;
import org.lmdbjava.KeyRange;
import org.lmdbjava.Txn;

/**
 * The watch history of etcd's keyspace (docs/migrating.md "etcd's Watch"): the {@code kv-history} database holds
 * the {@link KvEvents} of each revision that changed a key, by the revision as 8 big-endian bytes (so iteration is
 * in revision order), and the meta table its floor and size. Every revision above the floor that changed a key has
 * its record; the floor rises when the window drops its oldest records (more than {@link #MAX_REVISIONS} records
 * or {@link #MAX_BYTES} bytes) and when a compaction drops those below the compaction point. Written by apply
 * alone, so the history is the same on every replica and travels in snapshots.
 */
public final class KvHistory {
  /** Revisions with events kept at most. Part of the apply rules: changing it changes what replicas store. */
  public static final int MAX_REVISIONS = 10_000;
  /** Bytes of stored event records kept at most (the newest record is kept whatever its size). Apply rule too. */
  public static final long MAX_BYTES = 64L << 20;
  private static final byte[] FLOOR = "kv.history.floor".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] BYTES = "kv.history.bytes".getBytes(StandardCharsets.US_ASCII);

  private final Txn<byte[]> txn;
  private final Dbi<byte[]> meta;
  private final Dbi<byte[]> history;

  KvHistory(Txn<byte[]> txn, Dbi<byte[]> meta, Dbi<byte[]> history) {
    this.txn = txn;
    this.meta = meta;
    this.history = history;
  }

  /**
   * The events of one revision.
   *
   * @param revision the log index of the entry that made them
   */
  public record Revision(long revision, List<KvEvent> events) {
  }

  /**
   * Appends {@code events} to the record of {@code revision} (an entry may end several leases, each deleting keys),
   * then drops the oldest records while the window holds more than its bounds.
   */
  public void append(long revision, List<KvEvent> events) {
    byte[] key = revisionKey(revision);
    byte[] old = history.get(txn, key);
    KvEvents.Builder rec = old == null ? KvEvents.newBuilder() : parse(old).toBuilder();
    byte[] value = rec.addAllEvents(events).build().toByteArray();
    history.put(txn, key, value);
    long bytes = bytes() + value.length - (old == null ? 0 : old.length);
    long count = history.stat(txn).entries;
    List<byte[]> dropped = new ArrayList<>();
    try (CursorIterable<byte[]> it = history.iterate(txn)) {
      for (CursorIterable.KeyVal<byte[]> oldest : it) {
        if ((count <= MAX_REVISIONS && bytes <= MAX_BYTES) || ByteBuffer.wrap(oldest.key()).getLong() == revision) {
          break;
        }
        bytes -= oldest.val().length;
        count--;
        dropped.add(oldest.key().clone());
      }
    }
    // deleted once the cursor is closed: LMDB's cursor iteration does not survive deletes made beside it
    for (byte[] k : dropped) {
      history.delete(txn, k);
    }
    if (!dropped.isEmpty()) {
      setLong(FLOOR, ByteBuffer.wrap(dropped.get(dropped.size() - 1)).getLong());
    }
    setLong(BYTES, bytes);
  }

  /** Drops the records below {@code compacted} (a compaction): the floor becomes at least {@code compacted - 1}. */
  public void compact(long compacted) {
    long bytes = bytes();
    List<byte[]> dropped = new ArrayList<>();
    try (CursorIterable<byte[]> it = history.iterate(txn, KeyRange.closedOpen(revisionKey(0),
        revisionKey(compacted)))) {
      for (CursorIterable.KeyVal<byte[]> e : it) { // sizes only: the records are not parsed
        bytes -= e.val().length;
        dropped.add(e.key().clone());
      }
    }
    for (byte[] k : dropped) {
      history.delete(txn, k);
    }
    setLong(BYTES, bytes);
    setLong(FLOOR, Math.max(floor(), compacted - 1));
  }

  /**
   * The records of the revisions in [{@code from}, {@code to}], in revision order, at most {@code max} of them.
   * Complete only when {@code from} is above {@link #floor}: the caller checks.
   */
  public List<Revision> read(long from, long to, int max) {
    List<Revision> out = new ArrayList<>();
    if (from > to) {
      return out;
    }
    try (CursorIterable<byte[]> it = history.iterate(txn, KeyRange.closed(revisionKey(from), revisionKey(to)))) {
      for (CursorIterable.KeyVal<byte[]> e : it) {
        if (out.size() >= max) {
          break;
        }
        out.add(new Revision(ByteBuffer.wrap(e.key()).getLong(), parse(e.val()).getEventsList()));
      }
    }
    return out;
  }

  /** The floor: every revision above it that changed a key has its record here; 0 when nothing was dropped. */
  public long floor() {
    return getLong(FLOOR);
  }

  /** Revisions with records kept. */
  public long count() {
    return history.stat(txn).entries;
  }

  /** Bytes of the records kept (their encoded values). */
  public long bytes() {
    return getLong(BYTES);
  }

  private long getLong(byte[] key) {
    byte[] v = meta.get(txn, key);
    return v == null ? 0 : ByteBuffer.wrap(v).getLong();
  }

  private void setLong(byte[] key, long value) {
    meta.put(txn, key, revisionKey(value));
  }

  private static byte[] revisionKey(long revision) {
    return ByteBuffer.allocate(Long.BYTES).putLong(revision).array();
  }

  private static KvEvents parse(byte[] v) {
    try {
      return KvEvents.parseFrom(v);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt KV history record in LMDB", e);
    }
  }
}
