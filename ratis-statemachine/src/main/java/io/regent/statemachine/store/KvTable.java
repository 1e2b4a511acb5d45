package io.regent.statemachine.store;

import com.google.protobuf.InvalidProtocolBufferException;
import io.regent.statemachine.proto.KvRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.lmdbjava.CursorIterable;
import org.lmdbjava.Dbi;
import org.lmdbjava.KeyRange;
import org.lmdbjava.Stat;
import org.lmdbjava.Txn;

/**
 * etcd's keyspace (docs/migrating.md "etcd's KV"): the {@code kv} database holds a {@link KvRecord} by the key's
 * own bytes (so iteration is in etcd's key order), {@code kv-lease} one empty value per (lease id as 8 big-endian
 * bytes, key) for the keys attached to a lease, and the meta table the compaction point. Keys are at most
 * {@link #MAX_KEY_BYTES} bytes (LMDB's key limit less the lease id). Written by apply alone.
 */
public final class KvTable {
  /** Longest key stored, bytes: LMDB's 511-byte key limit less the 8 bytes of a lease id in {@code kv-lease}. */
  public static final int MAX_KEY_BYTES = 503;
  private static final byte[] COMPACTED = "kv.compacted".getBytes(StandardCharsets.US_ASCII);

  private final Txn<byte[]> txn;
  private final Dbi<byte[]> meta;
  private final Dbi<byte[]> kv;
  private final Dbi<byte[]> byLease;

  KvTable(Txn<byte[]> txn, Dbi<byte[]> meta, Dbi<byte[]> kv, Dbi<byte[]> byLease) {
    this.txn = txn;
    this.meta = meta;
    this.kv = kv;
    this.byLease = byLease;
  }

  /** The record of {@code key}, or {@code null} when the key does not exist. */
  public KvRecord get(byte[] key) {
    byte[] v = kv.get(txn, key);
    return v == null ? null : parse(v);
  }

  /** Every record with a key in [{@code from}, {@code to}) in key order; {@code to} null: no upper bound. */
  public List<KvRecord> range(byte[] from, byte[] to) {
    List<KvRecord> out = new ArrayList<>();
    KeyRange<byte[]> range = to == null ? KeyRange.atLeast(from) : KeyRange.closedOpen(from, to);
    try (CursorIterable<byte[]> it = kv.iterate(txn, range)) {
      it.forEach(e -> out.add(parse(e.val())));
    }
    return out;
  }

  /** Stores {@code rec}, moving its lease attachment from {@code oldLease} (0: none) to its own. */
  public void put(KvRecord rec, long oldLease) {
    byte[] key = rec.getKey().toByteArray();
    kv.put(txn, key, rec.toByteArray());
    if (oldLease != rec.getLease()) {
      if (oldLease != 0) {
        byLease.delete(txn, leaseKey(oldLease, key));
      }
      if (rec.getLease() != 0) {
        byLease.put(txn, leaseKey(rec.getLease(), key), new byte[0]);
      }
    }
  }

  /** Deletes {@code rec}'s key and its lease attachment. */
  public void delete(KvRecord rec) {
    byte[] key = rec.getKey().toByteArray();
    kv.delete(txn, key);
    if (rec.getLease() != 0) {
      byLease.delete(txn, leaseKey(rec.getLease(), key));
    }
  }

  /** The keys attached to lease {@code leaseId}, in key order. */
  public List<byte[]> keysOf(long leaseId) {
    List<byte[]> out = new ArrayList<>();
    byte[] from = leaseKey(leaseId, new byte[0]);
    try (CursorIterable<byte[]> it = byLease.iterate(txn, KeyRange.closedOpen(from, leaseKey(leaseId + 1,
        new byte[0])))) {
      it.forEach(e -> out.add(Arrays.copyOfRange(e.key(), Long.BYTES, e.key().length)));
    }
    return out;
  }

  /** Number of keys (LMDB's own entry count). */
  public long count() {
    return kv.stat(txn).entries;
  }

  /**
   * Bytes of the LMDB pages the keyspace's table takes (branch, leaf and overflow pages, at the environment's page
   * size): what the keys, values and their records cost on disk, read from LMDB's own counts, O(1).
   */
  public long bytes() {
    Stat st = kv.stat(txn);
    return (long) st.pageSize * (st.branchPages + st.leafPages + st.overflowPages);
  }

  /** The compaction point: the revision below which no history is served (0: never compacted). */
  public long compacted() {
    byte[] v = meta.get(txn, COMPACTED);
    return v == null ? 0 : ByteBuffer.wrap(v).getLong();
  }

  /** Moves the compaction point to {@code revision}. */
  public void setCompacted(long revision) {
    meta.put(txn, COMPACTED, ByteBuffer.allocate(Long.BYTES).putLong(revision).array());
  }

  private static byte[] leaseKey(long leaseId, byte[] key) {
    return ByteBuffer.allocate(Long.BYTES + key.length).putLong(leaseId).put(key).array();
  }

  private static KvRecord parse(byte[] v) {
    try {
      return KvRecord.parseFrom(v);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt KV record in LMDB", e);
    }
  }
}
