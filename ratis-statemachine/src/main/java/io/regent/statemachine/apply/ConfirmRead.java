package io.regent.statemachine.apply;

import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LeaseStatus;
import io.regent.statemachine.proto.NameHolder;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.store.StateView;
import java.util.ArrayList;
import java.util.List;

/**
 * What a Confirm reads from the state (docs/architecture.md §8, §8.1): whether each lease it renews or asks about
 * exists and its TTL, and the holder of each name it asks about. A pure function of (state, Confirm, index,
 * term) that writes nothing. Apply computes it for a Confirm entry, on the state after the entry's own write
 * (the renewal of a long lease clears its checkpoint, {@link LeaseRules#confirm}); the leader's answer under its
 * leadership lease computes it from a read transaction, with no entry. The same state gives the same bytes either way.
 */
public final class ConfirmRead {
  private ConfirmRead() {
  }

  /**
   * A Confirm's answer before the lease clock measured it.
   *
   * @param result the reply: {@code index} and {@code term} as given, one {@link LeaseStatus} per lease id of
   *     the request (renewals, then queries, in request order, a repeated id once per occurrence) with
   *     {@code alive}, {@code ttl_ms} (0 when not alive) and {@code remaining_ms} = -1 (not measured), and one
   *     {@link NameHolder} per well-formed name asked about, with its holder when it has one
   * @param renewed the live leases among those to renew, one per occurrence, in request order
   * @param queried the live leases among those asked about, one per occurrence, in request order
   */
  public record Answer(Result result, List<LeaseRecord> renewed, List<LeaseRecord> queried) {
  }

  /**
   * Reads {@code confirm}'s answer from {@code state} as of {@code index} in {@code term}.
   *
   * @param index the index the answer reflects: the Confirm entry's own at apply, the applied index when
   *     answered without an entry
   * @param term the term the answer speaks for: the entry's at apply, the ready leader's otherwise
   */
  public static Answer read(StateView state, Confirm confirm, long index, long term) {
    Result.Builder r = Result.newBuilder().setIndex(index).setTerm(term);
    List<LeaseRecord> renewed = new ArrayList<>();
    for (long id : confirm.getRenewLeaseIdsList()) {
      LeaseRecord lease = status(state, r, id);
      if (lease != null) {
        renewed.add(lease);
      }
    }
    List<LeaseRecord> queried = new ArrayList<>();
    for (long id : confirm.getQueryLeaseIdsList()) {
      LeaseRecord lease = status(state, r, id);
      if (lease != null) {
        queried.add(lease);
      }
    }
    for (String name : confirm.getQueryNamesList()) {
      if (Limits.checkName(name) != null) {
        continue; // the API never asks for one; a reader that finds no answer reads its replica instead
      }
      NameRecord rec = state.name(name);
      NameHolder.Builder h = NameHolder.newBuilder().setName(name);
      if (rec != null && rec.hasHolder()) {
        h.setHolder(rec.getHolder());
      }
      r.addNames(h);
    }
    return new Answer(r.build(), List.copyOf(renewed), List.copyOf(queried));
  }

  /** Adds lease {@code id}'s status, unmeasured, to {@code r}; returns the lease, or {@code null} when gone. */
  private static LeaseRecord status(StateView state, Result.Builder r, long id) {
    LeaseRecord lease = state.lease(id);
    r.addLeases(LeaseStatus.newBuilder().setId(id).setAlive(lease != null)
        .setTtlMs(lease == null ? 0 : lease.getTtlMs()).setRemainingMs(-1));
    return lease;
  }
}
