package io.regent.server.raft;

import io.regent.statemachine.proto.LeaseStatus;
import io.regent.statemachine.proto.Result;
import java.util.HashMap;
import java.util.Map;

/**
 * One applied Confirm round: its result (index, term) and the status of every lease it renewed or queried,
 * indexed once per round so that each of the round's thousands of keepalives finds its lease in O(1).
 *
 * @param result the Confirm entry's apply result
 * @param leases lease id to its status in that round
 */
public record Confirmation(Result result, Map<Long, LeaseStatus> leases) {
  /** Indexes {@code result}'s lease statuses. */
  static Confirmation of(Result result) {
    Map<Long, LeaseStatus> byId = new HashMap<>(result.getLeasesCount() * 2);
    for (LeaseStatus s : result.getLeasesList()) {
      byId.put(s.getId(), s);
    }
    return new Confirmation(result, byId);
  }
}
