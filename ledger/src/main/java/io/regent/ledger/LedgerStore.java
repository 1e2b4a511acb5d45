package io.regent.ledger;

import static org.lmdbjava.ByteArrayProxy.PROXY_BA;

import com.google.protobuf.ByteString;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.regent.api.v1.LedgerEntry;
import io.regent.fencing.FenceMetrics;
import io.regent.fencing.FencingMode;
import io.regent.fencing.IdempotencyKeyReusedException;
import io.regent.fencing.IdempotencyKeys;
import io.regent.fencing.StaleTokenException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
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
 * <p>Idempotency keys (Stripe's, see {@link IdempotencyKeys}): {@code idempotency}, key hash ‖ SHA-256 of the
 * idempotency key → written at (epoch ms, 8 bytes) ‖ position (8) ‖ token (8) ‖ SHA-256 of the entry (32), put
 * in the transaction that stores the entry, so an entry is stored iff its key is recorded with it, and a retry
 * after a crash between the commit and the answer finds it; {@code idempotency_by_time}, written at ‖ record
 * key → nothing, the order in which expired records are dropped (a few per append, oldest first).
 *
 * <p>Thread-safe: LMDB serializes write transactions; reads run concurrently with them.
 */
final class LedgerStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LedgerStore.class);
  private static final long MAP_SIZE_BYTES = 4L << 30;
  private static final int HASH_BYTES = 32;
  /** Expired idempotency records dropped per append at most, so that an append's time stays bounded. */
  private static final int PURGE_PER_APPEND = 64;
  private static final byte[] NOTHING = new byte[0];

  private final Env<byte[]> env;
  private final Dbi<byte[]> heads;
  private final Dbi<byte[]> entries;
  private final Dbi<byte[]> idempotency;
  private final Dbi<byte[]> idempotencyByTime;
  private final Optional<FencingMode> fencing;
  private final Optional<Counter> rejected;
  private final long retentionMs;
  private final Clock clock;
  private final LedgerFailpoint failpoint;

  /** An append's answer: the entry's position, and whether an earlier append with its idempotency key gave it. */
  record Appended(long position, boolean replayed) {
  }

  LedgerStore(Path dir, LedgerMode mode, MeterRegistry registry) {
    this(dir, mode, registry, IdempotencyKeys.DEFAULT_RETENTION, Clock.systemUTC(), LedgerFailpoint.fromSystem());
  }

  /**
   * @param retention how long an idempotency key is remembered after its append; positive
   * @param clock the time of appends and of expiry
   * @param failpoint what to do right after an append commits (crash tests)
   */
  LedgerStore(Path dir, LedgerMode mode, MeterRegistry registry, Duration retention, Clock clock,
              LedgerFailpoint failpoint) {
    this.retentionMs = IdempotencyKeys.checkRetention(retention).toMillis();
    this.clock = clock;
    this.failpoint = failpoint;
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create ledger directory " + dir, e);
    }
    // MDB_NOTLS: read transactions run on whichever gRPC thread serves the call.
    this.env = Env.create(PROXY_BA).setMapSize(MAP_SIZE_BYTES).setMaxDbs(4)
        .open(dir.toFile(), EnvFlags.MDB_NOTLS);
    this.heads = env.openDbi("heads", DbiFlags.MDB_CREATE);
    this.entries = env.openDbi("entries", DbiFlags.MDB_CREATE);
    this.idempotency = env.openDbi("idempotency", DbiFlags.MDB_CREATE);
    this.idempotencyByTime = env.openDbi("idempotency_by_time", DbiFlags.MDB_CREATE);
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
    return append(key, token, entry, null).position();
  }

  /**
   * Stores {@code entry} under {@code key} if {@code token} is admitted, raising H to it; with an idempotency
   * key, at most once: a live record of the key with the same entry answers with its position (replayed)
   * before the token is checked, and stores nothing.
   *
   * @param idempotencyKey null or empty for none; else at most 255 characters (checked by the service)
   * @throws StaleTokenException naming τ and H when refused; nothing was stored or recorded
   * @throws IdempotencyKeyReusedException when the key is on record with another entry; nothing was stored
   */
  Appended append(String key, long token, byte[] entry, String idempotencyKey) {
    byte[] hash = hash(key);
    boolean idempotent = idempotencyKey != null && !idempotencyKey.isEmpty();
    byte[] recordKey = idempotent ? recordKey(hash, idempotencyKey) : null;
    byte[] entryHash = idempotent ? digest(entry) : null;
    long now = clock.millis();
    long position;
    try (Txn<byte[]> txn = env.txnWrite()) {
      if (idempotent) {
        byte[] seen = idempotency.get(txn, recordKey);
        if (seen != null && ByteBuffer.wrap(seen).getLong(0) > now - retentionMs) {
          if (!Arrays.equals(seen, 3 * Long.BYTES, 3 * Long.BYTES + HASH_BYTES, entryHash, 0, HASH_BYTES)) {
            throw new IdempotencyKeyReusedException(key, idempotencyKey);
          }
          return new Appended(ByteBuffer.wrap(seen).getLong(Long.BYTES), true); // closing aborts: nothing written
        }
        if (seen != null) {
          forget(txn, recordKey, ByteBuffer.wrap(seen).getLong(0));
        }
      }
      ByteBuffer head = Optional.ofNullable(heads.get(txn, hash)).map(ByteBuffer::wrap)
          .orElse(ByteBuffer.allocate(2 * Long.BYTES));
      long highest = head.getLong(0);
      position = head.getLong(Long.BYTES) + 1;
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
      if (idempotent) {
        idempotency.put(txn, recordKey, ByteBuffer.allocate(3 * Long.BYTES + HASH_BYTES).putLong(now)
            .putLong(position).putLong(token).put(entryHash).array());
        idempotencyByTime.put(txn, timeKey(now, recordKey), NOTHING);
      }
      purgeExpired(txn, now - retentionMs, PURGE_PER_APPEND);
      txn.commit();
    }
    failpoint.afterCommit(key, position);
    return new Appended(position, false);
  }

  /**
   * Drops every expired idempotency record (for tests and operators; appends drop a few each).
   *
   * @return how many were dropped
   */
  int purgeExpired() {
    try (Txn<byte[]> txn = env.txnWrite()) {
      int dropped = purgeExpired(txn, clock.millis() - retentionMs, Integer.MAX_VALUE);
      txn.commit();
      return dropped;
    }
  }

  /** How many idempotency records are stored, expired ones not yet dropped included. */
  long idempotencyRecords() {
    try (Txn<byte[]> txn = env.txnRead()) {
      return idempotency.stat(txn).entries;
    }
  }

  /** Drops up to {@code limit} records written at or before {@code beforeMs}, oldest first. */
  private int purgeExpired(Txn<byte[]> txn, long beforeMs, int limit) {
    List<byte[]> expired = new ArrayList<>();
    try (CursorIterable<byte[]> it = idempotencyByTime.iterate(txn)) {
      for (CursorIterable.KeyVal<byte[]> kv : it) {
        if (expired.size() >= limit || ByteBuffer.wrap(kv.key()).getLong(0) > beforeMs) {
          break;
        }
        expired.add(kv.key());
      }
    }
    for (byte[] timeKey : expired) {
      byte[] recordKey = Arrays.copyOfRange(timeKey, Long.BYTES, timeKey.length);
      idempotencyByTime.delete(txn, timeKey);
      byte[] record = idempotency.get(txn, recordKey);
      // the key may have been written again since: drop the record only if it is this one
      if (record != null && ByteBuffer.wrap(record).getLong(0) == ByteBuffer.wrap(timeKey).getLong(0)) {
        idempotency.delete(txn, recordKey);
      }
    }
    return expired.size();
  }

  private void forget(Txn<byte[]> txn, byte[] recordKey, long writtenMs) {
    idempotency.delete(txn, recordKey);
    idempotencyByTime.delete(txn, timeKey(writtenMs, recordKey));
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

  private static byte[] recordKey(byte[] keyHash, String idempotencyKey) {
    return ByteBuffer.allocate(2 * HASH_BYTES).put(keyHash).put(hash(idempotencyKey)).array();
  }

  /** Written-at first, big-endian, so that the oldest records come first (times before 1970 do not occur). */
  private static byte[] timeKey(long writtenMs, byte[] recordKey) {
    return ByteBuffer.allocate(Long.BYTES + recordKey.length).putLong(writtenMs).put(recordKey).array();
  }

  private static byte[] hash(String key) {
    return digest(key.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] digest(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
