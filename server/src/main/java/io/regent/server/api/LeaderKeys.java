package io.regent.server.api;

import io.regent.api.v1.LeaderKey;
import io.regent.statemachine.proto.Holder;

/** The public {@link LeaderKey} of a stored holder: what Campaign, Leader and Observe answer with. */
final class LeaderKeys {
  private LeaderKeys() {
  }

  /** The key of holder {@code h} of {@code name}: its value, fencing token and lease. */
  static LeaderKey leaderKey(String name, Holder h) {
    return LeaderKey.newBuilder().setName(name).setValue(h.getValue()).setToken(h.getToken())
        .setLease(h.getLeaseId()).build();
  }
}
