package io.regent.server.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.InvalidProtocolBufferException;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.regent.statemachine.replica.ReplicaView;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One etcd Watch stream of {@link EtcdRequestFuzzTest}: a {@link WatchStream} over the fuzz test's store, its
 * drains run on the caller's thread and its responses kept by this observer, fed the requests the fuzzer wrote.
 * Checks that every response stands on a revision the state has, that a refused create carries etcd's reason, and
 * that the stream ends, if at all, with INVALID_ARGUMENT and etcd's text.
 */
final class WatchFuzzStream extends ServerCallStreamObserver<WatchResponse> {
  /** Requests one input sends on its stream, at most. */
  static final int MAX_REQUESTS = 4;

  private final List<WatchResponse> responses = new ArrayList<>();
  private Runnable onCancel;
  private Status ended;

  private WatchFuzzStream() {
  }

  /**
   * Sends the length-delimited requests of {@code wire} on a new stream, then cancels it as a client going away.
   *
   * @throws InvalidProtocolBufferException when a request is no WatchRequest (gRPC's refusal)
   */
  static void run(byte[] wire, ReplicaView replica, ScheduledExecutorService timers, long applied)
      throws InvalidProtocolBufferException {
    WatchFuzzStream obs = new WatchFuzzStream();
    WatchStream stream = new WatchStream(obs, new Headers(() -> null), new EtcdKv(null, null, null, replica,
        Runnable::run, timers));
    try {
      InputStream in = new ByteArrayInputStream(wire);
      for (int i = 0; i < MAX_REQUESTS && obs.ended == null; i++) {
        WatchRequest req = next(in);
        if (req == null) {
          break;
        }
        stream.onNext(req);
      }
    } finally {
      if (obs.onCancel != null) {
        obs.onCancel.run(); // releases the stream's subscription, as a client's cancel does
      }
    }
    for (WatchResponse r : obs.responses) {
      assertThat(r.getHeader().getRevision()).as("a response's revision").isBetween(0L, applied);
      if (r.getCreated() && r.getCanceled()) {
        assertThat(r.getCancelReason()).as("a refused create's reason").startsWith("mvcc: ");
      }
    }
    if (obs.ended != null) {
      assertThat(obs.ended.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(obs.ended.getDescription()).startsWith("etcdserver: ");
    }
  }

  /** The next length-delimited request of {@code in}, or null at its end. */
  private static WatchRequest next(InputStream in) throws InvalidProtocolBufferException {
    try {
      return WatchRequest.parseDelimitedFrom(in);
    } catch (InvalidProtocolBufferException e) {
      throw e;
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail to read
    }
  }

  @Override
  public void onNext(WatchResponse value) {
    assertThat(ended).as("nothing is sent after the stream ended").isNull();
    responses.add(value);
  }

  @Override
  public void onError(Throwable t) {
    ended = Status.fromThrowable(t);
  }

  @Override
  public void onCompleted() {
    ended = Status.OK;
  }

  @Override
  public boolean isReady() {
    return true;
  }

  @Override
  public void setOnReadyHandler(Runnable handler) {
  }

  @Override
  public boolean isCancelled() {
    return false;
  }

  @Override
  public void setOnCancelHandler(Runnable handler) {
    onCancel = handler;
  }

  @Override
  public void disableAutoInboundFlowControl() {
  }

  @Override
  public void request(int count) {
  }

  @Override
  public void setMessageCompression(boolean enable) {
  }

  @Override
  public void setCompression(String compression) {
  }
}
