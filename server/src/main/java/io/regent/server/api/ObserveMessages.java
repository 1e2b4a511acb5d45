package io.regent.server.api;

import io.regent.api.v1.ObserveResponse;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.proto.NameRecord;

/** The messages of an Observe stream: applied ownership changes, and the CURRENT holder a stream starts with. */
final class ObserveMessages {
  private ObserveMessages() {
  }

  /** The message of ownership change {@code e}; IllegalArgumentException for an event that is none. */
  static ObserveResponse toResponse(ChangeEvent e) {
    ObserveResponse.Builder b = ObserveResponse.newBuilder().setKind(kind(e.kind())).setName(e.name())
        .setIndex(e.index()).setOrdinal(e.ordinal());
    if (e.holder() != null) {
      b.setLeader(LeaderKeys.leaderKey(e.name(), e.holder()));
    }
    return b.build();
  }

  /**
   * The CURRENT message: the holder of {@code name} in {@code record} (null: no record) as of {@code index};
   * {@code compacted} when events before it may have been skipped.
   */
  static ObserveResponse current(String name, NameRecord record, long index, boolean compacted) {
    ObserveResponse.Builder b = ObserveResponse.newBuilder().setKind(ObserveResponse.Kind.CURRENT).setName(name)
        .setIndex(index).setCompacted(compacted);
    if (record != null && record.hasHolder()) {
      b.setLeader(LeaderKeys.leaderKey(name, record.getHolder()));
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
      case TOKEN_REFRESHED -> ObserveResponse.Kind.TOKEN_REFRESHED;
      case LEASE_ENDED, GROUP_CHANGED, KV_CHANGED -> throw new IllegalArgumentException("not an ownership change: " + k);
    };
  }
}
