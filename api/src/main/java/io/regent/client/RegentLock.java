package io.regent.client;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LeaderKey;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A distributed lock on a name (Curator's {@code InterProcessMutex} shape, etcd's {@code concurrency.Mutex}):
 * {@link #lock()} blocks until held, {@link #tryLock(Duration)} waits at most a while, {@link #unlock()} (or
 * {@link #close()}) releases; each has an async variant returning a {@link CompletableFuture}. Holding is
 * backed by a kept-alive lease ({@link LeaseKeeper}), so the lock can be lost — the lease not renewed for 2/3
 * of its TTL — and {@link #isHeld()} then turns false.
 *
 * <p>Every acquisition carries a fencing token ({@link #token()}, the log index of the grant,
 * docs/architecture.md §5): a lock alone cannot stop a holder that paused past its lease from writing, the
 * resource refusing its older token can. Not reentrant; one holder at a time per instance. Thread-safe.
 */
public final class RegentLock implements AutoCloseable {
  private final RegentClient client;
  private final String name;
  private final ByteString owner;
  private final long ttlMs;
  private final ExecutorService async = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "regent-lock-async");
    t.setDaemon(true);
    return t;
  });
  private LeaseKeeper keeper; // guarded by this
  private LeaderKey key; // guarded by this

  /**
   * A lock on {@code name}, not yet acquired.
   *
   * @param owner published while held, e.g. {@code host:pid} (what {@code regent leader NAME} shows)
   * @param ttlMs lease TTL, ms: how long after this process stops renewing the lock can be taken by another
   */
  public RegentLock(RegentClient client, String name, String owner, long ttlMs) {
    this.client = Objects.requireNonNull(client, "client");
    this.name = Objects.requireNonNull(name, "name");
    this.owner = ByteString.copyFromUtf8(Objects.requireNonNull(owner, "owner"));
    this.ttlMs = ttlMs;
  }

  /**
   * Blocks until the lock is held (at most the client's campaign timeout).
   *
   * @return the fencing token
   * @throws IllegalStateException when this instance holds the lock already
   * @throws StatusRuntimeException INVALID_ARGUMENT (name, TTL), UNAVAILABLE (no quorum), DEADLINE_EXCEEDED
   */
  public long lock() {
    return acquire(null).orElseThrow();
  }

  /**
   * Waits at most {@code timeout} for the lock.
   *
   * @return the fencing token, or empty when another held it all that time (nothing is then held or queued)
   * @throws IllegalStateException when this instance holds the lock already
   * @throws StatusRuntimeException INVALID_ARGUMENT (name, TTL), UNAVAILABLE (no quorum)
   */
  public OptionalLong tryLock(Duration timeout) {
    return acquire(Objects.requireNonNull(timeout, "timeout"));
  }

  private OptionalLong acquire(Duration timeout) {
    synchronized (this) {
      if (key != null) {
        throw new IllegalStateException("lock " + name + " is held by this instance already");
      }
    }
    LeaseKeeper k = LeaseKeeper.grant(client, ttlMs, name, reason -> { });
    try {
      LeaderKey held = timeout == null ? client.elections().campaign(name, k.leaseId(), owner, 0)
          : client.elections().campaign(name, k.leaseId(), owner, 0, timeout);
      synchronized (this) {
        keeper = k;
        key = held;
      }
      return OptionalLong.of(held.getToken());
    } catch (StatusRuntimeException e) {
      // Revoking frees the name should the campaign have won as its deadline passed, and leaves no candidacy.
      k.close();
      if (timeout != null && e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED) {
        return OptionalLong.empty();
      }
      throw e;
    }
  }

  /** Whether the lock is held: acquired, not released, and its lease still vouched for. */
  public synchronized boolean isHeld() {
    return key != null && keeper.isValid();
  }

  /** The fencing token of the current hold; empty when not held. */
  public synchronized OptionalLong token() {
    return isHeld() ? OptionalLong.of(key.getToken()) : OptionalLong.empty();
  }

  /** Releases the lock (resign, then revoke the lease); does nothing when not held. */
  public void unlock() {
    LeaseKeeper k;
    LeaderKey held;
    synchronized (this) {
      k = keeper;
      held = key;
      keeper = null;
      key = null;
    }
    if (held == null) {
      return;
    }
    try {
      client.elections().resign(held);
    } catch (StatusRuntimeException e) {
      // Not the holder any more (lost), or no quorum: revoking the lease frees the name either way.
    } finally {
      k.close();
    }
  }

  /** {@link #lock()} on the lock's own thread; completes with the token or the exception. */
  public CompletableFuture<Long> lockAsync() {
    return CompletableFuture.supplyAsync(this::lock, async);
  }

  /** {@link #tryLock(Duration)} on the lock's own thread. */
  public CompletableFuture<OptionalLong> tryLockAsync(Duration timeout) {
    return CompletableFuture.supplyAsync(() -> tryLock(timeout), async);
  }

  /** {@link #unlock()} on the lock's own thread. */
  public CompletableFuture<Void> unlockAsync() {
    return CompletableFuture.runAsync(this::unlock, async);
  }

  /** Unlocks (when held) and stops the async thread. */
  @Override
  public void close() {
    unlock();
    async.shutdownNow();
  }
}
