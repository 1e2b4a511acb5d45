package io.regent.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@link FencingGuard#write} over {@link InMemoryFenceStore}: the rules of {@link IdempotencyContract}, and what
 * only the guard and the in-memory store have (a store without records; a write dropping its key's expired
 * records). The guarded write appends to a list and returns the entry's position in it.
 */
class FencingGuardIdempotencyTest extends IdempotencyContract {
  private final List<String> entries = Collections.synchronizedList(new ArrayList<>());
  private InMemoryFenceStore store;

  @Override
  protected FenceUnderTest fence(FencingMode mode, Duration retention) {
    store = new InMemoryFenceStore(retention, clock);
    FencingGuard guard = new FencingGuard(store, mode, registry);
    InMemoryFenceStore bound = store;
    return new FenceUnderTest() {
      @Override
      public long write(String key, long token, String idempotencyKey, String requestHash, String entry) {
        return guard.write(key, token, idempotencyKey, requestHash, append(entry));
      }

      @Override
      public void writeFailing(String key, long token, String idempotencyKey, String message) {
        guard.write(key, token, idempotencyKey, "h", () -> {
          throw new IllegalStateException(message);
        });
      }

      @Override
      public long highest(String key) {
        return guard.highest(key);
      }

      @Override
      public List<String> entries() {
        return List.copyOf(entries);
      }

      @Override
      public long records(String key) {
        return bound.records(key);
      }

      @Override
      public int purgeExpired() {
        return bound.purgeExpired();
      }

      @Override
      public String store() {
        return bound.name();
      }

      @Override
      public Writer writer() {
        return this; // the guard is thread-safe
      }
    };
  }

  /** The guarded write: appends {@code entry} and returns its position among every entry so far. */
  private Supplier<Long> append(String entry) {
    return () -> {
      synchronized (entries) {
        entries.add(entry);
        return (long) entries.size();
      }
    };
  }

  @Test
  void aWriteDropsItsKeysExpiredRecords() throws Exception {
    FenceUnderTest fence = fence(FencingMode.MONOTONE, Duration.ofMinutes(10));
    fence.write("orders", 1, "k1", "h", "first");
    fence.write("orders", 1, "k2", "h", "second");
    clock.add(Duration.ofMinutes(10));
    fence.write("orders", 1, "k3", "h", "third");
    assertThat(store.records("orders")).isOne();
  }

  @Test
  void aStoreWithoutRecordsRefusesIdempotentWrites() {
    FenceStore bare = new FenceStore() {
      @Override
      public <T> T admit(String key, long token, FencingMode mode, Supplier<T> write) {
        return write.get();
      }

      @Override
      public long highest(String key) {
        return 0;
      }

      @Override
      public String name() {
        return "bare";
      }
    };
    FencingGuard guard = new FencingGuard(bare, FencingMode.STRICT, registry);
    assertThatThrownBy(() -> guard.write("orders", 1, "k", "h", append("x")))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(entries).isEmpty();
  }
}
