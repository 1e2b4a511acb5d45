package io.regent.ledger;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.LedgerAppendRequest;
import io.regent.api.v1.LedgerAppendResponse;
import io.regent.api.v1.LedgerGrpc;
import io.regent.api.v1.LedgerReadRequest;
import io.regent.api.v1.LedgerReadResponse;
import io.regent.fencing.IdempotencyKeyReusedException;
import io.regent.fencing.IdempotencyKeys;
import io.regent.fencing.StaleTokenException;
import io.regent.statemachine.limits.Limits;
import java.nio.charset.StandardCharsets;

/**
 * The {@code regent.v1.Ledger} service. A stale token is {@code FAILED_PRECONDITION} whose description is
 * the {@link StaleTokenException} message (it names τ and H), which the CLI turns into exit code 4. An
 * idempotency key reused for another entry is {@code ALREADY_EXISTS} whose description is the {@link
 * IdempotencyKeyReusedException} message (it names the key).
 */
final class LedgerService extends LedgerGrpc.LedgerImplBase {
  private final LedgerStore store;

  LedgerService(LedgerStore store) {
    this.store = store;
  }

  @Override
  public void append(LedgerAppendRequest req, StreamObserver<LedgerAppendResponse> obs) {
    String invalid = checkKey(req.getKey());
    if (invalid == null && req.getToken() < 1) {
      invalid = "token must be at least 1, got " + req.getToken();
    }
    if (invalid == null) {
      invalid = Limits.checkValue(req.getEntry().size());
    }
    if (invalid == null && !req.getIdempotencyKey().isEmpty()) {
      try {
        IdempotencyKeys.checkKey(req.getIdempotencyKey());
      } catch (IllegalArgumentException e) {
        invalid = e.getMessage();
      }
    }
    if (invalid != null) {
      obs.onError(Status.INVALID_ARGUMENT.withDescription(invalid).asRuntimeException());
      return;
    }
    LedgerStore.Appended appended;
    try {
      appended = store.append(req.getKey(), req.getToken(), req.getEntry().toByteArray(), req.getIdempotencyKey());
    } catch (StaleTokenException e) {
      obs.onError(Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (IdempotencyKeyReusedException e) {
      obs.onError(Status.ALREADY_EXISTS.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    obs.onNext(LedgerAppendResponse.newBuilder().setPosition(appended.position()).setReplayed(appended.replayed())
        .build());
    obs.onCompleted();
  }

  @Override
  public void read(LedgerReadRequest req, StreamObserver<LedgerReadResponse> obs) {
    String invalid = checkKey(req.getKey());
    if (invalid != null) {
      obs.onError(Status.INVALID_ARGUMENT.withDescription(invalid).asRuntimeException());
      return;
    }
    obs.onNext(LedgerReadResponse.newBuilder().addAllEntries(store.read(req.getKey())).build());
    obs.onCompleted();
  }

  /** Keys follow the limits of names (docs/architecture.md §7): non-empty, at most 1 KiB of UTF-8. */
  private static String checkKey(String key) {
    if (key.isEmpty()) {
      return "key must not be empty";
    }
    int bytes = key.getBytes(StandardCharsets.UTF_8).length;
    return bytes > Limits.MAX_NAME_BYTES
        ? "key is " + bytes + " bytes, above the limit of " + Limits.MAX_NAME_BYTES : null;
  }
}
