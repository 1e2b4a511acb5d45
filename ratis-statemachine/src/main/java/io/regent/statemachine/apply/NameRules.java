package io.regent.statemachine.apply;

import static io.regent.statemachine.apply.Results.error;
import static io.regent.statemachine.apply.Results.ofName;
import static io.regent.statemachine.apply.Succession.isHolder;
import static io.regent.statemachine.apply.Succession.withoutCandidate;

import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.ChangeEvent.Kind;
import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.Candidate;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.EndLockDelay;
import io.regent.statemachine.proto.FreshToken;
import io.regent.statemachine.proto.Holder;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.proto.Proclaim;
import io.regent.statemachine.proto.Resign;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.proto.Withdraw;
import io.regent.statemachine.store.StateTxn;
import java.util.List;
import java.util.TreeSet;

/**
 * The name rules of apply, one name per entry: campaign, proclaim, resign, withdraw, a fresh token, and the end
 * of a lock-delay (docs/architecture.md §2.4). Ownership passes only through {@link Succession}; a holder's
 * request is checked against its fencing token, and a refusal is a result.
 *
 * <p>Not thread-safe: one instance per rule applied, on the apply thread.
 */
final class NameRules {
  private final ApplyContext at;
  private final StateTxn txn;
  private final long index;
  private final Succession names;

  NameRules(ApplyContext at) {
    this.at = at;
    this.txn = at.txn();
    this.index = at.index();
    this.names = new Succession(at);
  }

  /**
   * Registers a lease as a candidate for a name: it holds the name at once when the name is free (its token this
   * entry's index), else waits in line, unless the campaign asks not to wait. A campaign with a TTL instead of a
   * lease grants its own lease, only when it registers.
   */
  Result.Builder campaign(Campaign c) {
    String bad = firstNonNull(Limits.checkName(c.getName()), Limits.checkValue(c.getValue().size()));
    if (bad == null && (c.getLockDelayMs() < 0 || c.getLockDelayMs() > Limits.MAX_TTL_MS)) {
      bad = "lock delay " + c.getLockDelayMs() + " ms outside [0, " + Limits.MAX_TTL_MS + "]";
    }
    if (bad == null && c.getTtlMs() != 0 && c.getLeaseId() != 0) {
      bad = "a campaign names a lease (" + c.getLeaseId() + ") or a ttl (" + c.getTtlMs() + " ms), not both";
    }
    if (bad != null) {
      return error(Code.INVALID_ARGUMENT, bad);
    }
    boolean ownLease = c.getTtlMs() != 0;
    LeaseRecord lease;
    if (ownLease) {
      // The lease this entry grants: stored only if the campaign registers (a refusal grants nothing).
      LeaseRules leases = new LeaseRules(at);
      Result.Builder refusal = leases.refuseGrant(c.getTtlMs(), c.getMaxLeases());
      if (refusal != null) {
        return refusal;
      }
      lease = LeaseRecord.newBuilder().setId(leases.peekLeaseId()).setTtlMs(c.getTtlMs()).build();
    } else {
      lease = txn.lease(c.getLeaseId());
      if (lease == null) {
        return error(Code.NOT_FOUND, "lease " + c.getLeaseId() + " not found");
      }
    }
    long leaseId = lease.getId();
    NameRecord rec = txn.name(c.getName());
    if (rec == null) {
      rec = NameRecord.newBuilder().setName(c.getName()).build();
    }
    // A retried campaign keeps the position it already has (idempotent per name and lease); its attempt becomes
    // the current one, so that only its own cleanup can undo it (docs/api.md "Attempts").
    if (isHolder(rec, leaseId)) {
      NameRecord now = withAttempt(rec, leaseId, c.getAttempt());
      return ofName(now).setElected(true);
    }
    if (rec.getCandidatesList().stream().anyMatch(x -> x.getLeaseId() == leaseId)) {
      return ofName(withAttempt(rec, leaseId, c.getAttempt()));
    }
    // a free name with candidates is reserved for a CampaignAll candidate at the head of its line
    boolean free = !rec.hasHolder() && rec.getLockDelayMs() == 0 && rec.getCandidatesCount() == 0;
    if (!free && c.getNoWait()) {
      // A try-campaign must not leave a candidacy behind: it could be elected after "not elected" was answered.
      return ofName(rec);
    }
    Result.Builder full = checkRoom(c, rec, free);
    if (full != null) {
      return full;
    }
    LeaseRecord registered = withName(lease, c.getName());
    txn.putLease(registered);
    Result.Builder result;
    if (free) {
      Holder h = Holder.newBuilder().setLeaseId(leaseId).setValue(c.getValue())
          .setToken(index).setSinceIndex(index).setLockDelayMs(c.getLockDelayMs()).setAttempt(c.getAttempt()).build();
      NameRecord taken = rec.toBuilder().setHolder(h).build();
      txn.putName(taken);
      at.effects().event(new ChangeEvent(Kind.ELECTED, c.getName(), h, index, leaseId));
      result = ofName(taken).setElected(true);
    } else {
      NameRecord queued = rec.toBuilder().addCandidates(Candidate.newBuilder().setLeaseId(leaseId)
          .setValue(c.getValue()).setRegisteredIndex(index).setLockDelayMs(c.getLockDelayMs())
          .setAttempt(c.getAttempt())).build();
      txn.putName(queued);
      result = ofName(queued);
    }
    if (ownLease) {
      txn.setLastLeaseId(leaseId);
      at.effects().granted(registered);
      result.setLeaseId(leaseId);
    }
    return result;
  }

  /**
   * {@code rec} with {@code attempt} as the attempt of lease {@code leaseId}'s holdership or candidacy, stored when it
   * is newer than the recorded one; unchanged when {@code attempt} is empty (a campaign of version 1 names none).
   * Attempts sort by the time their call arrived (docs/api.md "Attempts"): a stranded older call's campaign that
   * applies late does not take the candidacy back from the re-send that replaced it.
   */
  private NameRecord withAttempt(NameRecord rec, long leaseId, String attempt) {
    if (attempt.isEmpty()) {
      return rec;
    }
    NameRecord.Builder b = rec.toBuilder();
    if (isHolder(rec, leaseId)) {
      if (rec.getHolder().getAttempt().compareTo(attempt) >= 0) {
        return rec;
      }
      b.getHolderBuilder().setAttempt(attempt);
    } else {
      for (Candidate.Builder c : b.getCandidatesBuilderList()) {
        if (c.getLeaseId() == leaseId) {
          if (c.getAttempt().compareTo(attempt) >= 0) {
            return rec;
          }
          c.setAttempt(attempt);
        }
      }
    }
    NameRecord updated = b.build();
    txn.putName(updated);
    return updated;
  }

  /**
   * Whether a cleanup of {@code attempt} may act on a holdership or candidacy recorded with {@code recorded}: always
   * for a cleanup that names no attempt, or a record written before attempts (empty); else only its own.
   */
  private static boolean ownAttempt(String recorded, String attempt) {
    return attempt.isEmpty() || recorded.isEmpty() || recorded.equals(attempt);
  }

  /**
   * Refuses a campaign that would add a name beyond {@code max_names} or a candidate beyond
   * {@code max_candidates} (limits carried by the entry, judged against replicated state: deterministic).
   */
  private Result.Builder checkRoom(Campaign c, NameRecord rec, boolean free) {
    boolean newName = !rec.hasHolder() && rec.getCandidatesCount() == 0 && rec.getLockDelayMs() == 0;
    if (newName && c.getMaxNames() > 0 && txn.nameCount() >= c.getMaxNames()) {
      return error(Code.RESOURCE_EXHAUSTED, "the cluster holds " + txn.nameCount() + " names, its limit (--max-names "
          + c.getMaxNames() + ")");
    }
    if (!free && c.getMaxCandidates() > 0 && rec.getCandidatesCount() >= c.getMaxCandidates()) {
      return error(Code.RESOURCE_EXHAUSTED, "'" + c.getName() + "' already has " + rec.getCandidatesCount()
          + " waiting candidates, its limit (--max-candidates " + c.getMaxCandidates() + ")");
    }
    return null;
  }

  /** Sets the holder's value, for the holder of the token given; the token is unchanged. */
  Result.Builder proclaim(Proclaim p) {
    String bad = firstNonNull(Limits.checkName(p.getName()), Limits.checkValue(p.getValue().size()));
    if (bad != null) {
      return error(Code.INVALID_ARGUMENT, bad);
    }
    NameRecord rec = txn.name(p.getName());
    Result.Builder refusal = checkToken(rec, p.getName(), p.getToken());
    if (refusal != null) {
      return refusal;
    }
    Holder h = rec.getHolder().toBuilder().setValue(p.getValue()).build();
    NameRecord updated = rec.toBuilder().setHolder(h).build();
    txn.putName(updated);
    at.effects().event(new ChangeEvent(Kind.PROCLAIMED, p.getName(), h, index, h.getLeaseId()));
    return ofName(updated).setElected(true);
  }

  /**
   * The holder of the token given gives the name up, which passes on; optionally its lease ends too. A cleanup's
   * resign (with an attempt) is refused with {@link Code#FAILED_PRECONDITION} when the holder bears a newer attempt.
   */
  Result.Builder resign(Resign r) {
    NameRecord rec = txn.name(r.getName());
    Result.Builder refusal = checkToken(rec, r.getName(), r.getToken());
    if (refusal != null) {
      return refusal;
    }
    if (!ownAttempt(rec.getHolder().getAttempt(), r.getAttempt())) {
      return error(Code.FAILED_PRECONDITION, "'" + r.getName() + "' is held by a newer attempt of lease "
          + rec.getHolder().getLeaseId() + " than the one resigning (docs/api.md \"Attempts\")");
    }
    long leaseId = rec.getHolder().getLeaseId();
    LeaseRecord lease = txn.lease(leaseId);
    if (lease != null) {
      txn.putLease(withoutName(lease, r.getName()));
    }
    at.effects().event(new ChangeEvent(Kind.RESIGNED, r.getName(), null, index, leaseId));
    NameRecord after = names.promote(rec.toBuilder().clearHolder().build());
    names.store(after);
    if (r.getRevokeLease() && lease != null) {
      // The name is already passed on, so the revocation frees only the lease's other names and candidacies.
      new LeaseRules(at).end(List.of(txn.lease(leaseId)), Kind.REVOKED);
      return ofName(after).setLeaseId(leaseId);
    }
    return ofName(after);
  }

  /**
   * Takes a lease's waiting candidacy out of a name's line (of all its names, for a CampaignAll candidacy); a
   * cleanup's withdraw (with an attempt) leaves a candidacy of a newer attempt in place.
   */
  Result.Builder withdraw(Withdraw w) {
    NameRecord rec = txn.name(w.getName());
    if (rec == null || isHolder(rec, w.getLeaseId())) {
      // Withdrawing touches only a waiting candidacy; a holder leaves by Resign.
      return rec == null ? Result.newBuilder() : ofName(rec).setElected(true);
    }
    if (rec.getCandidatesList().stream().anyMatch(c -> c.getLeaseId() == w.getLeaseId()
        && !ownAttempt(c.getAttempt(), w.getAttempt()))) {
      return ofName(rec);
    }
    List<String> all = rec.getCandidatesList().stream().filter(c -> c.getLeaseId() == w.getLeaseId())
        .findFirst().filter(c -> c.getAllNamesCount() > 0).map(c -> (List<String>) c.getAllNamesList())
        .orElse(List.of(w.getName()));
    LeaseRecord lease = txn.lease(w.getLeaseId());
    for (String name : all) {
      // a CampaignAll candidacy is one candidate: it leaves the line of every one of its names
      NameRecord r = txn.name(name);
      if (r != null) {
        names.store(names.promote(withoutCandidate(r, w.getLeaseId())));
      }
      if (lease != null) {
        lease = withoutName(lease, name);
      }
    }
    if (lease != null) {
      txn.putLease(lease);
    }
    NameRecord after = txn.name(w.getName());
    return ofName(after != null ? after : NameRecord.newBuilder().setName(w.getName()).build());
  }

  /** Gives the holder of the token given this entry's index as its new token, keeping the name. */
  Result.Builder freshToken(FreshToken f) {
    NameRecord rec = txn.name(f.getName());
    Result.Builder refusal = checkToken(rec, f.getName(), f.getToken());
    if (refusal != null) {
      return refusal;
    }
    Holder h = rec.getHolder().toBuilder().setToken(index).build();
    NameRecord updated = rec.toBuilder().setHolder(h).build();
    txn.putName(updated);
    at.effects().event(new ChangeEvent(Kind.TOKEN_REFRESHED, f.getName(), h, index, h.getLeaseId()));
    return ofName(updated).setElected(true);
  }

  /** Ends the lock-delay the leader of the entry's term timed, and passes the name on. */
  Result.Builder endLockDelay(EndLockDelay end) {
    if (end.getProposerTerm() != at.term()) {
      return error(Code.FAILED_PRECONDITION, "lock-delay end decided in term " + end.getProposerTerm()
          + ", applied in " + at.term());
    }
    NameRecord rec = txn.name(end.getName());
    if (rec == null || rec.getLockDelayMs() == 0 || rec.getLockDelayStartIndex() != end.getDelayStartIndex()) {
      // No delay, or a newer one than this entry was aimed at: a late or retried copy ends nothing.
      return Result.newBuilder();
    }
    NameRecord after = names.promote(rec.toBuilder().setLockDelayMs(0).setLockDelayStartIndex(0).build());
    names.store(after);
    return ofName(after);
  }

  private static Result.Builder checkToken(NameRecord rec, String name, long token) {
    if (rec == null || !rec.hasHolder()) {
      return error(Code.FAILED_PRECONDITION, "name '" + name + "' has no holder");
    }
    if (rec.getHolder().getToken() != token) {
      return error(Code.FAILED_PRECONDITION, "token " + token + " is not the holder's token of '" + name
          + "' (current " + rec.getHolder().getToken() + ")");
    }
    return null;
  }

  private static LeaseRecord withName(LeaseRecord lease, String name) {
    TreeSet<String> names = new TreeSet<>(lease.getNamesList());
    names.add(name);
    return lease.toBuilder().clearNames().addAllNames(names).build();
  }

  private static LeaseRecord withoutName(LeaseRecord lease, String name) {
    TreeSet<String> names = new TreeSet<>(lease.getNamesList());
    names.remove(name);
    return lease.toBuilder().clearNames().addAllNames(names).build();
  }

  private static String firstNonNull(String a, String b) {
    return a != null ? a : b;
  }
}
