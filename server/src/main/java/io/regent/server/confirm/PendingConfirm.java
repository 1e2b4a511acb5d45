package io.regent.server.confirm;

import io.regent.statemachine.proto.Confirm;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One request waiting for its confirmation, by a round ({@link LeaderRounds}) or by the leader's answer to a
 * follower's question ({@link FollowerQuestions}); both pack the requests they carry into one Confirm entry.
 *
 * @param renew leases whose keepalive the confirmation answers
 * @param query leases whose remaining time to report
 * @param names names whose holder to report
 * @param future completed with the confirmation, or null for a request that nobody waits for
 */
record PendingConfirm(List<Long> renew, List<Long> query, List<String> names,
                      CompletableFuture<Confirmation> future) {
  /** Upper bound of what this request adds to a Confirm entry, bytes (protobuf: tag + varint, tag + length). */
  long bytes() {
    long b = 11L * (renew.size() + query.size());
    for (String n : names) {
      b += 3 + n.length() * 3L; // a UTF-16 char is at most 3 UTF-8 bytes
    }
    return b;
  }

  /**
   * Removes from the front of {@code queue} the requests that fit one Confirm of {@link Confirmer#MAX_ROUND_BYTES}
   * (at least one when there is one); the rest go into the next, which also begins after they arrived. Caller
   * holds the lock that guards {@code queue}.
   */
  static List<PendingConfirm> take(List<PendingConfirm> queue) {
    int taken = 0;
    long bytes = 0;
    while (taken < queue.size()) {
      long more = queue.get(taken).bytes();
      if (taken > 0 && bytes + more > Confirmer.MAX_ROUND_BYTES) {
        break;
      }
      bytes += more;
      taken++;
    }
    List<PendingConfirm> batch = new ArrayList<>(queue.subList(0, taken));
    queue.subList(0, taken).clear();
    return batch;
  }

  /**
   * The Confirm entry answering {@code batch}: its lease ids once each, at most
   * {@link Confirmer#MAX_NAMES_PER_ROUND} names.
   */
  static Confirm.Builder entry(List<PendingConfirm> batch) {
    Set<Long> renew = new LinkedHashSet<>();
    Set<Long> query = new LinkedHashSet<>();
    Set<String> names = new LinkedHashSet<>();
    batch.forEach(p -> {
      renew.addAll(p.renew);
      query.addAll(p.query);
      for (String n : p.names) {
        if (names.size() < Confirmer.MAX_NAMES_PER_ROUND) {
          names.add(n);
        }
      }
    });
    return Confirm.newBuilder().addAllRenewLeaseIds(renew).addAllQueryLeaseIds(query).addAllQueryNames(names);
  }
}
