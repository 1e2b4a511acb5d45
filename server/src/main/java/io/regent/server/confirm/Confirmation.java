package io.regent.server.confirm;

import io.regent.statemachine.proto.LeaseStatus;
import io.regent.statemachine.proto.NameHolder;
import io.regent.statemachine.proto.Result;
import java.util.HashMap;
import java.util.Map;

/**
 * One applied Confirm round: its result (index, term), the status of every lease it renewed or queried,
 * indexed once per round so that each of the round's thousands of keepalives finds its lease in O(1), and the
 * holder of every name it was asked about.
 *
 * @param result the Confirm entry's apply result
 * @param leases lease id to its status in that round
 * @param names name to its holder as of the round's index, for the names the round carried
 */
public record Confirmation(Result result, Map<Long, LeaseStatus> leases, Map<String, NameHolder> names) {
  /** Indexes {@code result}'s lease statuses and names. */
  static Confirmation of(Result result) {
    Map<Long, LeaseStatus> byId = new HashMap<>(result.getLeasesCount() * 2);
    for (LeaseStatus s : result.getLeasesList()) {
      byId.put(s.getId(), s);
    }
    Map<String, NameHolder> byName = new HashMap<>(result.getNamesCount() * 2);
    for (NameHolder h : result.getNamesList()) {
      byName.put(h.getName(), h);
    }
    return new Confirmation(result, byId, byName);
  }
}
