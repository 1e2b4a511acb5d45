package io.regent.fencing;

import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * A thread-safe {@link FenceStore} in process memory, for resources that live in the same process and are
 * lost with it (H need not outlive what it guards).
 *
 * <p>Each key has its own monitor held across check, write and update, so writes to one key are serialized
 * while different keys proceed in parallel. Fence entries are never removed: one small object per key ever
 * seen.
 *
 * <p>Idempotency records ({@link #write}) are kept per key, in the order they were made, with the result the
 * effect returned (the object itself). A record is live for the retention from its write (by the injected
 * clock); each write to a key drops that key's expired records, and {@link #purgeExpired()} drops those of
 * every key (for keys no longer written to).
 */
public final class InMemoryFenceStore implements FenceStore {
  private final ConcurrentMap<String, Fence> fences = new ConcurrentHashMap<>();
  private final Duration retention;
  private final Clock clock;

  /** A store keeping idempotency keys for {@link IdempotencyKeys#DEFAULT_RETENTION} (24 h) of the UTC clock. */
  public InMemoryFenceStore() {
    this(IdempotencyKeys.DEFAULT_RETENTION, Clock.systemUTC());
  }

  /**
   * @param retention how long an idempotency key is remembered after its first write; positive, and at least
   *     the longest window in which a client retries
   * @param clock the time of writes and of expiry (a fixed or stepped clock in tests)
   * @throws IllegalArgumentException when {@code retention} is not positive
   */
  public InMemoryFenceStore(Duration retention, Clock clock) {
    this.retention = IdempotencyKeys.checkRetention(retention);
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public <T> T admit(String key, long token, FencingMode mode, Supplier<T> write) {
    Fence fence = fences.computeIfAbsent(key, k -> new Fence());
    synchronized (fence) {
      return admitLocked(fence, key, token, mode, write);
    }
  }

  @Override
  public <T> T write(String key, long token, FencingMode mode, String idempotencyKey, String requestHash,
                     Supplier<T> effect) {
    Fence fence = fences.computeIfAbsent(key, k -> new Fence());
    synchronized (fence) {
      long now = clock.millis();
      long before = now - retention.toMillis();
      fence.dropExpired(before);
      Record seen = fence.records.get(idempotencyKey);
      if (seen != null && seen.createdMs <= before) { // behind a younger record: the clock went back
        fence.records.remove(idempotencyKey);
        seen = null;
      }
      if (seen != null) {
        if (!seen.requestHash.equals(requestHash)) {
          throw new IdempotencyKeyReusedException(key, idempotencyKey);
        }
        @SuppressWarnings("unchecked")
        T first = (T) seen.result;
        return first;
      }
      T result = admitLocked(fence, key, token, mode, effect);
      fence.records.put(idempotencyKey, new Record(requestHash, result, now));
      return result;
    }
  }

  private static <T> T admitLocked(Fence fence, String key, long token, FencingMode mode, Supplier<T> write) {
    if (!mode.admits(token, fence.highest)) {
      throw new StaleTokenException(key, token, fence.highest, mode);
    }
    T result = write.get();
    fence.highest = token;
    return result;
  }

  /**
   * Drops the expired idempotency records of every key.
   *
   * @return how many were dropped
   */
  public int purgeExpired() {
    long before = clock.millis() - retention.toMillis();
    int dropped = 0;
    for (Fence fence : fences.values()) {
      synchronized (fence) {
        dropped += fence.dropExpired(before);
      }
    }
    return dropped;
  }

  /** How many idempotency records {@code key} holds, expired ones not yet dropped included (for tests). */
  public int records(String key) {
    Fence fence = fences.get(key);
    if (fence == null) {
      return 0;
    }
    synchronized (fence) {
      return fence.records.size();
    }
  }

  @Override
  public long highest(String key) {
    Fence fence = fences.get(key);
    if (fence == null) {
      return 0;
    }
    synchronized (fence) {
      return fence.highest;
    }
  }

  /** Returns {@code memory}. */
  @Override
  public String name() {
    return "memory";
  }

  private record Record(String requestHash, Object result, long createdMs) {
  }

  private static final class Fence {
    long highest;
    /** Idempotency key → record, in write order (a key is only ever inserted, never re-put while present). */
    final Map<String, Record> records = new LinkedHashMap<>();

    /** Drops records written at or before {@code beforeMs}, oldest first; stops at the first live one. */
    int dropExpired(long beforeMs) {
      int dropped = 0;
      for (Iterator<Record> it = records.values().iterator(); it.hasNext(); ) {
        if (it.next().createdMs > beforeMs) {
          break;
        }
        it.remove();
        dropped++;
      }
      return dropped;
    }
  }
}
