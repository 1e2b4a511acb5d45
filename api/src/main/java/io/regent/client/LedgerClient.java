package io.regent.client;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.regent.api.v1.LedgerAppendRequest;
import io.regent.api.v1.LedgerAppendResponse;
import io.regent.api.v1.LedgerEntry;
import io.regent.api.v1.LedgerGrpc;
import io.regent.api.v1.LedgerReadRequest;
import io.regent.fencing.FencingMode;
import io.regent.fencing.IdempotencyKeyReusedException;
import io.regent.fencing.StaleTokenException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A client of one fenced ledger ({@code regent ledger serve}, service {@code regent.v1.Ledger}, docs/architecture.md §5).
 * A stale token comes back as a typed {@link StaleTokenException} naming τ and H. Thread-safe.
 */
public final class LedgerClient implements AutoCloseable {
  /** Deadline of each call, ms. */
  public static final long CALL_TIMEOUT_MS = 5_000;
  /** The ledger's FAILED_PRECONDITION description, i.e. {@link StaleTokenException}'s message. */
  private static final Pattern STALE =
      Pattern.compile("highest admitted is (\\d+) \\((strict|monotone) mode", Pattern.DOTALL);

  private final ManagedChannel channel;

  private LedgerClient(String address) {
    int colon = address.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("ledger address '" + address + "' is not host:port");
    }
    this.channel = NettyChannelBuilder.forAddress(address.substring(0, colon),
        Integer.parseInt(address.substring(colon + 1))).usePlaintext().build();
  }

  /** Connects (lazily) to the ledger at {@code host:port}. */
  public static LedgerClient connect(String address) {
    return new LedgerClient(address);
  }

  /**
   * Appends {@code entry} to {@code key} with fencing token {@code token}.
   *
   * @return the entry's position (1 for the key's first entry)
   * @throws StaleTokenException when the ledger refused the token; nothing was stored
   * @throws StatusRuntimeException for any other failure (INVALID_ARGUMENT, UNAVAILABLE, ...)
   */
  public long append(String key, long token, ByteString entry) {
    return append(key, token, entry, "").getPosition();
  }

  /**
   * Appends {@code entry} to {@code key} with fencing token {@code token} at most once per idempotency key
   * (Stripe's idempotency keys): send the same key with every retry of this append, e.g. after
   * {@code UNAVAILABLE} or {@code DEADLINE_EXCEEDED}, when the first may have been stored; the ledger answers a
   * retry with the first append's position ({@code replayed} true) and stores nothing.
   *
   * @param idempotencyKey the client's name for this append, at most 255 characters; empty for none
   * @return {@code position} (1 for the key's first entry; the first append's for a replay) and {@code replayed}
   * @throws StaleTokenException when the ledger refused the token; nothing was stored
   * @throws IdempotencyKeyReusedException when the ledger holds {@code idempotencyKey} for another entry of
   *     {@code key} ({@code ALREADY_EXISTS}); nothing was stored
   * @throws StatusRuntimeException for any other failure (INVALID_ARGUMENT, UNAVAILABLE, ...)
   */
  public LedgerAppendResponse append(String key, long token, ByteString entry, String idempotencyKey) {
    try {
      return LedgerGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
          .append(LedgerAppendRequest.newBuilder().setKey(key).setToken(token).setEntry(entry)
              .setIdempotencyKey(idempotencyKey).build());
    } catch (StatusRuntimeException e) {
      Optional<StaleTokenException> stale = stale(key, token, e);
      if (stale.isPresent()) {
        throw stale.get();
      }
      if (e.getStatus().getCode() == Status.Code.ALREADY_EXISTS && !idempotencyKey.isEmpty()) {
        throw new IdempotencyKeyReusedException(key, idempotencyKey);
      }
      throw e;
    }
  }

  /** Every entry of {@code key} in append order; empty for a key never appended to. */
  public List<LedgerEntry> read(String key) {
    return LedgerGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .read(LedgerReadRequest.newBuilder().setKey(key).build()).getEntriesList();
  }

  /** The typed rejection carried by a FAILED_PRECONDITION whose description names H and the mode. */
  static Optional<StaleTokenException> stale(String key, long token, StatusRuntimeException e) {
    String description = e.getStatus().getDescription();
    if (e.getStatus().getCode() != Status.Code.FAILED_PRECONDITION || description == null) {
      return Optional.empty();
    }
    Matcher m = STALE.matcher(description);
    if (!m.find()) {
      return Optional.empty();
    }
    FencingMode mode = FencingMode.valueOf(m.group(2).toUpperCase(Locale.ROOT));
    return Optional.of(new StaleTokenException(key, token, Long.parseLong(m.group(1)), mode));
  }

  @Override
  public void close() {
    channel.shutdownNow();
  }
}
