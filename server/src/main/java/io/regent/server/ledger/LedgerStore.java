package io.regent.server.ledger;

import static org.lmdbjava.ByteArrayProxy.PROXY_BA;

import com.google.protobuf.ByteString;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.regent.api.v1.LedgerEntry;
import io.regent.fencing.FenceMetrics;
import io.regent.fencing.FencingMode;
import io.regent.fencing.StaleTokenException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.lmdbjava.CursorIterable;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.KeyRange;
import org.lmdbjava.Txn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger's LMDB environment: per key, an append-only list of entries and the fence H.
 *
 * <p>The fence is checked and raised in the same LMDB write transaction that stores the entry, so an entry
 * is durable iff its token was admitted, and H survives restarts with the entries it guards.
 *
 * <p>Tables: {@code heads}, key hash → H (8 bytes) ‖ last position (8 bytes); {@code entries}, key hash ‖
 * position (8 bytes, big-endian, so a key's entries are adjacent and in order) → token (8 bytes) ‖ entry.
 * Keys are stored as their SHA-256 because a key may be 1 KiB and LMDB keys are limited to 511 bytes.
 * Commits are fsynced (LMDB's default) before an append is acknowledged.
 *
 * <p>Thread-safe: LMDB serializes write transactions; reads run concurrently with them.
 */
final class LedgerStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LedgerStore.class);
  private static final long MAP_SIZE_BYTES = 4L << 30;
  private static final int HASH_BYTES = 32;

  private final Env<byte[]> env;
  private final Dbi<byte[]> heads;
  private final Dbi<byte[]> entries;
  private final Optional<FencingMode> fencing;
  private final Optional<Counter> rejected;

  LedgerStore(Path dir, LedgerMode mode, MeterRegistry registry) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create ledger directory " + dir, e);
    }
    // MDB_NOTLS: read transactions run on whichever gRPC thread serves the call.
    this.env = Env.create(PROXY_BA).setMapSize(MAP_SIZE_BYTES).setMaxDbs(2)
        .open(dir.toFile(), EnvFlags.MDB_NOTLS);
    this.heads = env.openDbi("heads", DbiFlags.MDB_CREATE);
    this.entries = env.openDbi("entries", DbiFlags.MDB_CREATE);
    this.fencing = mode.fencing();
    this.rejected = fencing.map(f -> FenceMetrics.rejected(registry, "lmdb", f));
  }

  /**
   * Stores {@code entry} under {@code key} if {@code token} is admitted, raising H to it.
   *
   * @return the entry's position (1 for the key's first entry)
   * @throws StaleTokenException naming τ and H when refused; nothing was stored
   */
  long append(String key, long token, byte[] entry) {
    byte[] hash = hash(key);
    try (Txn<byte[]> txn = env.txnWrite()) {
      ByteBuffer head = Optional.ofNullable(heads.get(txn, hash)).map(ByteBuffer::wrap)
          .orElse(ByteBuffer.allocate(2 * Long.BYTES));
      long highest = head.getLong(0);
      long position = head.getLong(Long.BYTES) + 1;
      if (fencing.isPresent() && !fencing.get().admits(token, highest)) {
        StaleTokenException stale = new StaleTokenException(key, token, highest, fencing.get());
        rejected.ifPresent(Counter::increment);
        LOG.info("ledger refused an append: {}", stale.getMessage());
        throw stale;
      }
      long newHighest = fencing.isPresent() ? token : highest;
      heads.put(txn, hash, ByteBuffer.allocate(2 * Long.BYTES).putLong(newHighest).putLong(position).array());
      entries.put(txn, entryKey(hash, position),
          ByteBuffer.allocate(Long.BYTES + entry.length).putLong(token).put(entry).array());
      txn.commit();
      return position;
    }
  }

  /** Every entry of {@code key} in position order; empty when none. */
  List<LedgerEntry> read(String key) {
    byte[] hash = hash(key);
    List<LedgerEntry> out = new ArrayList<>();
    try (Txn<byte[]> txn = env.txnRead();
         CursorIterable<byte[]> it = entries.iterate(txn, KeyRange.atLeast(entryKey(hash, 0)))) {
      for (CursorIterable.KeyVal<byte[]> kv : it) {
        // The range has no end bound: stop at the first entry of another key.
        if (!Arrays.equals(kv.key(), 0, HASH_BYTES, hash, 0, HASH_BYTES)) {
          break;
        }
        ByteBuffer v = ByteBuffer.wrap(kv.val());
        out.add(LedgerEntry.newBuilder()
            .setPosition(ByteBuffer.wrap(kv.key()).getLong(HASH_BYTES))
            .setToken(v.getLong())
            .setEntry(ByteString.copyFrom(v))
            .build());
      }
    }
    return out;
  }

  @Override
  public void close() {
    env.close();
  }

  private static byte[] entryKey(byte[] hash, long position) {
    return ByteBuffer.allocate(HASH_BYTES + Long.BYTES).put(hash).putLong(position).array();
  }

  private static byte[] hash(String key) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
