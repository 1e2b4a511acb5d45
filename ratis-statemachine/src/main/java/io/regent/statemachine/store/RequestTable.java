package io.regent.statemachine.store;

import com.google.protobuf.InvalidProtocolBufferException;
import io.regent.statemachine.proto.RequestRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.lmdbjava.Dbi;
import org.lmdbjava.Txn;

/**
 * The stored answers to request ids (docs/api.md "Request ids"): the {@code requests} database holds a
 * {@link RequestRecord} by id, {@code request-order} the id stored at each place of the retention order, and the
 * meta table three counters (next place, oldest live place, bytes of the live records) beside the applied index,
 * whose page every apply writes anyway. Records are never replaced, only pruned oldest first, so the live ones are
 * exactly the places from oldest to next.
 *
 * <p>Pruning runs in chunks of {@link #PRUNE_CHUNK} once the count or the bytes pass their bound: one apply in that
 * many deletes a run of neighbouring keys of {@code request-order} instead of every apply one, which keeps the pages
 * an apply writes few (each commit writes every page it touched). Apply alone writes this table, from the entries,
 * so every replica keeps the same records.
 */
public final class RequestTable {
  /** Records pruned at once past the bound, at most (an eighth of the bound for a small one). */
  static final int PRUNE_CHUNK = 1024;
  private static final byte[] NEXT = "appliedIndex.requests.next".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] OLDEST = "appliedIndex.requests.oldest".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] BYTES = "appliedIndex.requests.bytes".getBytes(StandardCharsets.US_ASCII);

  private final Txn<byte[]> txn;
  private final Dbi<byte[]> meta;
  private final Dbi<byte[]> records;
  private final Dbi<byte[]> order;

  RequestTable(Txn<byte[]> txn, Dbi<byte[]> meta, Dbi<byte[]> records, Dbi<byte[]> order) {
    this.txn = txn;
    this.meta = meta;
    this.records = records;
    this.order = order;
  }

  /** The record of request {@code id}, or {@code null} when there is none (never stored, or pruned). */
  public RequestRecord get(String id) {
    byte[] v = records.get(txn, idKey(id));
    return v == null ? null : parse(v, id);
  }

  private static RequestRecord parse(byte[] v, String id) {
    try {
      return RequestRecord.parseFrom(v);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt request record of '" + id + "' in LMDB", e);
    }
  }

  /**
   * Stores {@code record} for {@code id} (which has none) at the next place; once more than {@code maxRecords}
   * records or {@code maxBytes} bytes are kept, prunes the oldest until at most {@code maxRecords} less a chunk
   * ({@link #PRUNE_CHUNK}, or an eighth of {@code maxRecords} when smaller) and {@code maxBytes} bytes remain (the
   * newest one always stays).
   */
  public void put(String id, RequestRecord record, int maxRecords, long maxBytes) {
    long seq = counter(NEXT);
    byte[] value = record.toBuilder().setSeq(seq).build().toByteArray();
    records.put(txn, idKey(id), value);
    order.put(txn, seqKey(seq), idKey(id));
    setCounter(NEXT, seq + 1);
    long bytes = counter(BYTES) + value.length;
    long oldest = counter(OLDEST);
    if (seq + 1 - oldest > maxRecords || bytes > maxBytes) {
      long keep = maxRecords - Math.max(1, Math.min(PRUNE_CHUNK, maxRecords / 8));
      while (oldest < seq && (seq + 1 - oldest > keep || bytes > maxBytes)) {
        byte[] key = seqKey(oldest);
        byte[] pruned = order.get(txn, key);
        bytes -= records.get(txn, pruned).length;
        records.delete(txn, pruned);
        order.delete(txn, key);
        oldest++;
      }
      setCounter(OLDEST, oldest);
    }
    setCounter(BYTES, bytes);
  }

  /**
   * Whether a record of a request applied above log index {@code seenIndex} may have been pruned: records are pruned
   * oldest first, so every pruned one applied below the oldest record kept. False when none was ever pruned.
   */
  public boolean mayHavePrunedAbove(long seenIndex) {
    long oldest = counter(OLDEST);
    if (oldest == 0) {
      return false;
    }
    byte[] id = order.get(txn, seqKey(oldest));
    if (id == null) {
      return true; // nothing kept at all: every record so far was pruned
    }
    long oldestIndex = parse(records.get(txn, id), "oldest").getAnswer().getIndex();
    return seenIndex + 1 < oldestIndex;
  }

  /** Number of records kept. */
  public long count() {
    return counter(NEXT) - counter(OLDEST);
  }

  /** Bytes of the records kept (their values). */
  public long bytes() {
    return counter(BYTES);
  }

  private long counter(byte[] key) {
    byte[] v = meta.get(txn, key);
    return v == null ? 0 : ByteBuffer.wrap(v).getLong();
  }

  private void setCounter(byte[] key, long value) {
    meta.put(txn, key, ByteBuffer.allocate(Long.BYTES).putLong(value).array());
  }

  private static byte[] idKey(String id) {
    return id.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] seqKey(long seq) {
    return ByteBuffer.allocate(Long.BYTES).putLong(seq).array();
  }
}
