package io.regent.statemachine.store;

import com.google.protobuf.InvalidProtocolBufferException;
import io.regent.statemachine.proto.RequestRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.lmdbjava.Dbi;
import org.lmdbjava.Txn;

/**
 * The stored answers to request ids (DESIGN §4c; docs/api.md "Request ids"), in the meta table of one transaction:
 * {@code request/id/<id>} holds a {@link RequestRecord}, {@code request/seq/<8 bytes>} the id stored at that place
 * of the retention order, and three counters (next place, oldest live place, bytes of the live records). Records are
 * never replaced, only pruned oldest first, so the live ones are exactly the places from oldest to next.
 *
 * <p>Apply alone writes it, from the entries, so every replica keeps the same records.
 */
public final class RequestTable {
  private static final String ID = "request/id/";
  private static final String SEQ = "request/seq/";
  private static final byte[] NEXT = "request/next".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] OLDEST = "request/oldest".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] BYTES = "request/bytes".getBytes(StandardCharsets.US_ASCII);

  private final Txn<byte[]> txn;
  private final Dbi<byte[]> meta;

  RequestTable(Txn<byte[]> txn, Dbi<byte[]> meta) {
    this.txn = txn;
    this.meta = meta;
  }

  /** The record of request {@code id}, or {@code null} when there is none (never stored, or pruned). */
  public RequestRecord get(String id) {
    byte[] v = meta.get(txn, idKey(id));
    if (v == null) {
      return null;
    }
    try {
      return RequestRecord.parseFrom(v);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt request record of '" + id + "' in LMDB", e);
    }
  }

  /**
   * Stores {@code record} for {@code id} (which has none) at the next place, then prunes the oldest records while
   * more than {@code maxRecords} or {@code maxBytes} bytes are kept (the newest one always stays).
   */
  public void put(String id, RequestRecord record, int maxRecords, long maxBytes) {
    long seq = counter(NEXT);
    byte[] value = record.toBuilder().setSeq(seq).build().toByteArray();
    meta.put(txn, idKey(id), value);
    meta.put(txn, seqKey(seq), id.getBytes(StandardCharsets.US_ASCII));
    setCounter(NEXT, seq + 1);
    long bytes = counter(BYTES) + value.length;
    long oldest = counter(OLDEST);
    while (oldest < seq && (seq + 1 - oldest > maxRecords || bytes > maxBytes)) {
      byte[] key = seqKey(oldest);
      String pruned = new String(meta.get(txn, key), StandardCharsets.US_ASCII);
      byte[] old = meta.get(txn, idKey(pruned));
      bytes -= old.length;
      meta.delete(txn, idKey(pruned));
      meta.delete(txn, key);
      oldest++;
    }
    setCounter(OLDEST, oldest);
    setCounter(BYTES, bytes);
  }

  /** Number of records kept. */
  public long count() {
    return counter(NEXT) - counter(OLDEST);
  }

  /** Bytes of the records kept. */
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
    return (ID + id).getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] seqKey(long seq) {
    byte[] prefix = SEQ.getBytes(StandardCharsets.US_ASCII);
    return ByteBuffer.allocate(prefix.length + Long.BYTES).put(prefix).putLong(seq).array();
  }
}
