package io.regent.server.api;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.regent.api.v1.ObserveResponse;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.NameRecord;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Starts Observe streams (docs/architecture.md §4.3): the current holder read linearizably, then every ownership change
 * with a higher index; or, when resuming, the history after the given index, or the current state with
 * {@code compacted=true} when that history is no longer kept here. At most {@code maxStreams} streams are
 * served at once; one more is refused with RESOURCE_EXHAUSTED.
 */
final class ObserveStreams {
  private final StateReader reader;
  private final EventHub hub;
  private final Executor executor;
  private final int bufferCapacity;
  private final int maxStreams;
  private final AtomicInteger active = new AtomicInteger();

  /**
   * @param bufferCapacity events one stream may have queued before it is ended (see {@link ObserveStream})
   * @param maxStreams streams served at once by this node
   */
  ObserveStreams(StateReader reader, EventHub hub, Executor executor, int bufferCapacity, int maxStreams) {
    this.reader = reader;
    this.hub = hub;
    this.executor = executor;
    this.bufferCapacity = bufferCapacity;
    this.maxStreams = maxStreams;
  }

  /** Streams being served now. */
  int active() {
    return active.get();
  }

  /**
   * Starts an Observe stream of {@code name} on {@code obs}: from the current holder when {@code afterIndex} is 0,
   * else from the changes after that log index — after the event of that entry whose ordinal is
   * {@code afterOrdinal}, or after the whole entry when it is 0. RESOURCE_EXHAUSTED when this node serves its
   * maximum already.
   */
  void observe(String name, long afterIndex, int afterOrdinal, ServerCallStreamObserver<ObserveResponse> obs) {
    if (active.incrementAndGet() > maxStreams) {
      active.decrementAndGet();
      throw Status.RESOURCE_EXHAUSTED.withDescription("this node serves " + maxStreams
          + " observe streams, its limit (--max-observers); retry later or observe through another node")
          .asRuntimeException();
    }
    ObserveStream stream = new ObserveStream(name, obs, hub, executor, bufferCapacity, active::decrementAndGet);
    if (afterIndex > 0) {
      List<ChangeEvent> backlog = hub.subscribe(afterIndex, afterOrdinal, stream);
      if (backlog != null) {
        stream.start(null, afterIndex, afterOrdinal, backlog.stream().filter(e -> e.name().equals(name)).toList());
        return;
      }
    }
    boolean compacted = afterIndex > 0;
    // Subscribe first, then read: every event above the read's applied index reaches the stream.
    hub.listen(stream);
    reader.read(false, txn -> new Snapshot(txn.name(name), txn.appliedIndex())).whenComplete((s, err) -> {
      if (err != null) {
        stream.fail(StatusCodes.toStatus(err).getStatus());
        return;
      }
      stream.start(ObserveMessages.current(name, s.record, s.appliedIndex, compacted), s.appliedIndex, 0, List.of());
    });
  }

  private record Snapshot(NameRecord record, long appliedIndex) {
  }
}
