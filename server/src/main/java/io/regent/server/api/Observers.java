package io.regent.server.api;

import io.grpc.stub.ServerCallStreamObserver;
import io.regent.api.v1.ObserveResponse;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.NameRecord;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * Starts Observe streams (DESIGN §4): the current holder read linearizably, then every ownership change
 * with a higher index; or, when resuming, the history after the given index, or the current state with
 * {@code compacted=true} when that history is no longer kept here.
 */
final class Observers {
  private final StateReader reader;
  private final EventHub hub;
  private final Executor executor;
  private final int bufferCapacity;

  Observers(StateReader reader, EventHub hub, Executor executor, int bufferCapacity) {
    this.reader = reader;
    this.hub = hub;
    this.executor = executor;
    this.bufferCapacity = bufferCapacity;
  }

  void observe(String name, long afterIndex, ServerCallStreamObserver<ObserveResponse> obs) {
    ObserveStream stream = new ObserveStream(name, obs, hub, executor, bufferCapacity);
    if (afterIndex > 0) {
      List<ChangeEvent> backlog = hub.subscribe(afterIndex, stream);
      if (backlog != null) {
        stream.start(null, afterIndex, backlog.stream().filter(e -> e.name().equals(name))
            .map(Events::toResponse).toList());
        return;
      }
    }
    boolean compacted = afterIndex > 0;
    // Subscribe first, then read: every event above the read's applied index reaches the stream.
    hub.listen(stream);
    reader.read(false, txn -> new Snapshot(txn.name(name), txn.appliedIndex())).whenComplete((s, err) -> {
      if (err != null) {
        stream.fail(Statuses.toStatus(err).getStatus());
        return;
      }
      ObserveResponse.Builder first = ObserveResponse.newBuilder().setKind(ObserveResponse.Kind.CURRENT)
          .setName(name).setIndex(s.appliedIndex).setCompacted(compacted);
      if (s.record != null && s.record.hasHolder()) {
        first.setLeader(Keys.leaderKey(name, s.record.getHolder()));
      }
      stream.start(first.build(), s.appliedIndex, List.of());
    });
  }

  private record Snapshot(NameRecord record, long appliedIndex) {
  }
}
