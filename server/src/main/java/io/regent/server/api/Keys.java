package io.regent.server.api;

import io.regent.api.v1.LeaderKey;
import io.regent.statemachine.proto.Holder;

/** Conversions between stored holders and the public {@link LeaderKey}. */
final class Keys {
  private Keys() {
  }

  static LeaderKey leaderKey(String name, Holder h) {
    return LeaderKey.newBuilder().setName(name).setValue(h.getValue()).setToken(h.getToken())
        .setLease(h.getLeaseId()).build();
  }
}
