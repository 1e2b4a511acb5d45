package io.regent.etcdcompat;

import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** What the jetcd tests share: UTF-8 byte sequences, and waiting for jetcd's futures. */
final class Jetcd {
  /** How long a test waits for one jetcd call, s. */
  static final long WAIT_S = 30;

  private Jetcd() {
  }

  /** {@code s} as jetcd's bytes, UTF-8. */
  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  /** The value of {@code f}, waiting at most {@link #WAIT_S}. */
  static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(WAIT_S, TimeUnit.SECONDS);
  }
}
