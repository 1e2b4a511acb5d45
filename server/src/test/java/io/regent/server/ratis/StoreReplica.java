package io.regent.server.ratis;

import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.RegentStore;
import io.regent.statemachine.store.StateTxn;
import java.util.function.Function;

/** A replica view over a bare store, for tests that write member records by hand and have no events. */
final class StoreReplica {
  private StoreReplica() {
  }

  static ReplicaView of(RegentStore store) {
    return new ReplicaView() {
      @Override
      public <T> T read(Function<StateTxn, T> body) {
        return store.read(body);
      }

      @Override
      public EventHub hub() {
        throw new UnsupportedOperationException("no events in a bare store");
      }
    };
  }
}
