package io.regent.server.api;

import io.regent.api.v1.ObserveResponse;
import io.regent.statemachine.event.ChangeEvent;

/** Conversion of applied events to Observe messages. */
final class Events {
  private Events() {
  }

  static ObserveResponse toResponse(ChangeEvent e) {
    ObserveResponse.Builder b = ObserveResponse.newBuilder().setKind(kind(e.kind())).setName(e.name())
        .setIndex(e.index());
    if (e.holder() != null) {
      b.setLeader(Keys.leaderKey(e.name(), e.holder()));
    }
    return b.build();
  }

  private static ObserveResponse.Kind kind(ChangeEvent.Kind k) {
    return switch (k) {
      case ELECTED -> ObserveResponse.Kind.ELECTED;
      case PROCLAIMED -> ObserveResponse.Kind.PROCLAIMED;
      case RESIGNED -> ObserveResponse.Kind.RESIGNED;
      case EXPIRED -> ObserveResponse.Kind.EXPIRED;
      case REVOKED -> ObserveResponse.Kind.REVOKED;
      case LEASE_ENDED, GROUP_CHANGED -> throw new IllegalArgumentException("not an ownership change: " + k);
    };
  }
}
