package io.regent.server.ratis;

import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.RegentStore;
import io.regent.statemachine.store.StateTxn;
import java.util.function.Function;

/** A replica view over a bare store, for tests that apply or write by hand. */
public final class StoreReplica {
  private StoreReplica() {
  }

  /** {@code store}'s view with no events (tests that write member records by hand). */
  public static ReplicaView of(RegentStore store) {
    return of(store, null);
  }

  /** {@code store}'s view whose events come from {@code hub} (null: none, {@code hub()} throws). */
  public static ReplicaView of(RegentStore store, EventHub hub) {
    return new ReplicaView() {
      @Override
      public <T> T read(Function<StateTxn, T> body) {
        return store.read(body);
      }

      @Override
      public EventHub hub() {
        if (hub == null) {
          throw new UnsupportedOperationException("no events in a bare store");
        }
        return hub;
      }
    };
  }
}
