package io.regent.fencing;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * A thread-safe {@link FenceStore} in process memory, for resources that live in the same process and are
 * lost with it (H need not outlive what it guards).
 *
 * <p>Each key has its own monitor held across check, write and update, so writes to one key are serialized
 * while different keys proceed in parallel. Entries are never removed: one small object per key ever seen.
 */
public final class InMemoryFenceStore implements FenceStore {
  private final ConcurrentMap<String, Fence> fences = new ConcurrentHashMap<>();

  @Override
  public <T> T admit(String key, long token, FencingMode mode, Supplier<T> write) {
    Fence fence = fences.computeIfAbsent(key, k -> new Fence());
    synchronized (fence) {
      if (!mode.admits(token, fence.highest)) {
        throw new StaleTokenException(key, token, fence.highest, mode);
      }
      T result = write.get();
      fence.highest = token;
      return result;
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

  private static final class Fence {
    long highest;
  }
}
