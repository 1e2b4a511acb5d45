package io.regent.statemachine.apply;

import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.ChangeEvent.Kind;
import io.regent.statemachine.group.GroupApplier;
import io.regent.statemachine.proto.Batch;
import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.Candidate;
import io.regent.statemachine.proto.Checkpoint;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.EndLockDelay;
import io.regent.statemachine.proto.FreshToken;
import io.regent.statemachine.proto.Holder;
import io.regent.statemachine.proto.LeaseCheckpoint;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.MemberTiming;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.proto.Proclaim;
import io.regent.statemachine.proto.Resign;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.proto.Withdraw;
import io.regent.statemachine.store.StateTxn;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Applies one log entry to Regent's state: a pure function of (state, entry, entry index, entry term).
 *
 * <p>No clock, no randomness, no I/O but the given transaction: every replica that applies the same log
 * reaches byte-identical LMDB contents. Ownership passes only here, and the new holder's fencing token is
 * the index of the entry being applied, so tokens strictly increase per name and globally (docs/architecture.md §2.4, §9;
 * Kleppmann, "How to do distributed locking"). Business refusals are results, never exceptions.
 *
 * <p>Not thread-safe: one instance per apply call, on Ratis's single apply thread.
 */
public final class Applier {
  private final StateTxn txn;
  private final long index;
  private final long term;
  private final boolean unsafeSkipRelease;
  private final List<ChangeEvent> events = new ArrayList<>();
  private final List<Long> ended = new ArrayList<>();
  private final List<LeaseRecord> renewed = new ArrayList<>();
  private final List<LeaseRecord> queried = new ArrayList<>();
  private final List<NameRecord> lockDelays = new ArrayList<>();
  private final List<LeaseRecord> grants = new ArrayList<>();

  private Applier(StateTxn txn, long index, long term, boolean unsafeSkipRelease) {
    this.txn = txn;
    this.index = index;
    this.term = term;
    this.unsafeSkipRelease = unsafeSkipRelease;
  }

  /**
   * Applies {@code entry}, found in the log at {@code index} with {@code term}, within {@code txn} (the
   * caller commits and records the applied index), keeping every rule.
   */
  public static ApplyOutcome apply(StateTxn txn, LogEntry entry, long index, long term) {
    return apply(txn, entry, index, term, false);
  }

  /**
   * As {@link #apply(StateTxn, LogEntry, long, long)}; {@code unsafeSkipRelease} is TESTS ONLY, the negative
   * control of Jepsen's ownership workload: ownership groups skip the release rule (see {@link GroupApplier}).
   * Every replica of a log must apply it with the same value.
   */
  public static ApplyOutcome apply(StateTxn txn, LogEntry entry, long index, long term, boolean unsafeSkipRelease) {
    Applier a = new Applier(txn, index, term, unsafeSkipRelease);
    Result result = (entry.getVersion() == EntryCodec.BATCH_VERSION && entry.hasBatch() ? a.batch(entry.getBatch())
        : a.dispatch(entry)).setIndex(index).build();
    return new ApplyOutcome(result, List.copyOf(a.events), List.copyOf(a.grants), List.copyOf(a.ended),
        List.copyOf(a.renewed), List.copyOf(a.queried), List.copyOf(a.lockDelays));
  }

  /**
   * Applies a batch entry's operations in order, each in a nested transaction, each with its own result
   * (docs/architecture.md §2.6). The token rule holds literally: an operation that would give a name (or move
   * a group's partitions) a token an earlier operation of the batch already gave it — two grants of one name at
   * one index — is undone and answered {@link Code#BATCH_CONFLICT}, for its proposer to send again alone. Only
   * the operations {@link EntryCodec#batchable} admits may be in a batch; any other is refused.
   */
  private Result.Builder batch(Batch b) {
    Set<String> tokened = new HashSet<>();
    Result.Builder out = Result.newBuilder();
    for (LogEntry op : b.getEntriesList()) {
      Result[] result = new Result[1];
      txn.nested(child -> {
        if (!EntryCodec.batchable(op) || op.getVersion() != EntryCodec.VERSION) {
          result[0] = error(Code.INVALID_ARGUMENT, "a " + op.getCommandCase() + " entry of version "
              + op.getVersion() + " cannot be part of a batch").setIndex(index).build();
          return false;
        }
        Applier a = new Applier(child, index, term, unsafeSkipRelease);
        Result r = a.dispatch(op).setIndex(index).build();
        Set<String> given = tokensGiven(a.events);
        if (given.stream().anyMatch(tokened::contains)) {
          result[0] = error(Code.BATCH_CONFLICT, "another operation of this batch changed the same owner")
              .setIndex(index).build();
          return false;
        }
        tokened.addAll(given);
        events.addAll(a.events);
        grants.addAll(a.grants);
        ended.addAll(a.ended);
        lockDelays.addAll(a.lockDelays);
        result[0] = r;
        return true;
      });
      out.addResults(result[0]);
    }
    return out;
  }

  /** The names given this entry's index as their token, and the groups whose partitions moved, by {@code events}. */
  private static Set<String> tokensGiven(List<ChangeEvent> events) {
    Set<String> given = new HashSet<>();
    for (ChangeEvent e : events) {
      switch (e.kind()) {
        case ELECTED, TOKEN_REFRESHED -> given.add("name/" + e.name());
        case GROUP_CHANGED -> given.add("group/" + e.name());
        default -> {
        }
      }
    }
    return given;
  }

  private Result.Builder dispatch(LogEntry e) {
    if (e.getVersion() != EntryCodec.VERSION) {
      return error(Code.INVALID_ARGUMENT, "unknown log-entry version " + e.getVersion()
          + (e.hasBatch() ? " for a batch" : ""));
    }
    return switch (e.getCommandCase()) {
      case GRANT -> grant(e.getGrant().getTtlMs(), e.getGrant().getMaxLeases());
      case REVOKE -> revoke(e.getRevoke().getLeaseId());
      case EXPIRE -> expire(e.getExpire().getLeaseIdsList(), e.getExpire().getProposerTerm());
      case CAMPAIGN -> campaign(e.getCampaign());
      case PROCLAIM -> proclaim(e.getProclaim());
      case RESIGN -> resign(e.getResign());
      case WITHDRAW -> withdraw(e.getWithdraw());
      case FRESH_TOKEN -> freshToken(e.getFreshToken());
      case CONFIRM -> confirm(e.getConfirm());
      case END_LOCK_DELAY -> endLockDelay(e.getEndLockDelay());
      case MEMBER_API -> memberApi(e.getMemberApi().getMemberId(), e.getMemberApi().getApiAddress());
      case MEMBER_TIMING -> memberTiming(e.getMemberTiming());
      case LEASE_CHECKPOINT -> checkpoint(e.getLeaseCheckpoint());
      case GROUP_JOIN -> groups().join(e.getGroupJoin());
      case GROUP_LEAVE -> groups().leave(e.getGroupLeave());
      case GROUP_RELEASE -> groups().release(e.getGroupRelease());
      case CAMPAIGN_ALL -> new AllNames(txn, index, events).campaign(e.getCampaignAll());
      case BATCH -> error(Code.INVALID_ARGUMENT, "a batch entry must have version " + EntryCodec.BATCH_VERSION);
      case COMMAND_NOT_SET -> error(Code.INVALID_ARGUMENT, "log entry has no command");
    };
  }

  private Result.Builder grant(long ttlMs, long maxLeases) {
    Result.Builder refusal = refuseGrant(ttlMs, maxLeases);
    if (refusal != null) {
      return refusal;
    }
    long id = nextLeaseId();
    LeaseRecord granted = LeaseRecord.newBuilder().setId(id).setTtlMs(ttlMs).build();
    txn.putLease(granted);
    grants.add(granted);
    return Result.newBuilder().setLeaseId(id);
  }

  /**
   * The id of a lease this entry grants now: the entry's index, unless an earlier operation of the same batch
   * entry took it — then one above the largest id granted so far (docs/architecture.md §2.2). Unique and
   * increasing; in a log without batch entries always the index, as before.
   */
  private long peekLeaseId() {
    return Math.max(index, txn.lastLeaseId() + 1);
  }

  /** Takes {@link #peekLeaseId()} for a lease being stored. */
  private long nextLeaseId() {
    long id = peekLeaseId();
    txn.setLastLeaseId(id);
    return id;
  }

  /** Why a lease of {@code ttlMs} may not be granted now, or {@code null} when it may. */
  private Result.Builder refuseGrant(long ttlMs, long maxLeases) {
    if (ttlMs <= 0 || ttlMs > Limits.MAX_TTL_MS) {
      return error(Code.INVALID_ARGUMENT, "ttl " + ttlMs + " ms outside (0, " + Limits.MAX_TTL_MS + "]");
    }
    if (maxLeases > 0 && txn.leaseCount() >= maxLeases) {
      return error(Code.RESOURCE_EXHAUSTED, "the cluster holds " + txn.leaseCount()
          + " leases, its limit (--max-leases " + maxLeases + "); revoke some first");
    }
    return null;
  }

  private GroupApplier groups() {
    return new GroupApplier(txn, index, events, ttlMs -> {
      LeaseRecord granted = LeaseRecord.newBuilder().setId(nextLeaseId()).setTtlMs(ttlMs).build();
      txn.putLease(granted);
      grants.add(granted);
      return granted;
    }, unsafeSkipRelease);
  }

  private Result.Builder memberApi(String id, String apiAddress) {
    int bytes = id.getBytes(StandardCharsets.UTF_8).length;
    if (bytes == 0 || bytes > StateTxn.MAX_MEMBER_ID_BYTES
        || apiAddress.getBytes(StandardCharsets.UTF_8).length > Limits.MAX_NAME_BYTES) {
      return error(Code.INVALID_ARGUMENT, "member id must be 1.." + StateTxn.MAX_MEMBER_ID_BYTES
          + " bytes and its API address at most " + Limits.MAX_NAME_BYTES);
    }
    txn.putMemberApi(id, apiAddress);
    return Result.newBuilder();
  }

  private Result.Builder memberTiming(MemberTiming timing) {
    int bytes = timing.getMemberId().getBytes(StandardCharsets.UTF_8).length;
    if (bytes == 0 || bytes > StateTxn.MAX_MEMBER_ID_BYTES || timing.getMinElectionTimeoutMs() <= 0) {
      return error(Code.INVALID_ARGUMENT, "member id must be 1.." + StateTxn.MAX_MEMBER_ID_BYTES
          + " bytes and its minimum election timeout above 0 ms");
    }
    txn.putMemberTiming(timing);
    return Result.newBuilder();
  }

  private Result.Builder revoke(long leaseId) {
    LeaseRecord lease = txn.lease(leaseId);
    if (lease == null) {
      return error(Code.NOT_FOUND, "lease " + leaseId + " not found");
    }
    endLeases(List.of(lease), Kind.REVOKED);
    return Result.newBuilder().setLeaseId(leaseId);
  }

  private Result.Builder expire(List<Long> ids, long proposerTerm) {
    if (proposerTerm != term) {
      // Decided by the leader of another term: its clock no longer speaks for the cluster (docs/architecture.md §3.2).
      return error(Code.FAILED_PRECONDITION, "expiry decided in term " + proposerTerm + ", applied in " + term);
    }
    List<LeaseRecord> live = new ArrayList<>();
    for (long id : new TreeSet<>(ids)) {
      LeaseRecord lease = txn.lease(id);
      if (lease != null) {
        live.add(lease);
      }
    }
    endLeases(live, Kind.EXPIRED);
    return Result.newBuilder();
  }

  /**
   * Ends leases in two phases so that no lease ending in this entry is promoted by it: first every
   * candidacy of an ending lease is withdrawn, then the names they hold are freed and passed on.
   */
  private void endLeases(List<LeaseRecord> leases, Kind kind) {
    groups().leasesEnded(leases);
    for (LeaseRecord lease : leases) {
      for (String name : lease.getNamesList()) {
        NameRecord rec = txn.name(name);
        if (rec != null && !isHolder(rec, lease.getId())) {
          store(withoutCandidate(rec, lease.getId()));
        }
      }
    }
    for (LeaseRecord lease : leases) {
      for (String name : lease.getNamesList()) {
        NameRecord rec = txn.name(name);
        if (rec != null && !rec.hasHolder()) {
          store(promote(rec)); // a CampaignAll candidate that reserved it may have left the head of the line
        }
      }
    }
    for (LeaseRecord lease : leases) {
      for (String name : lease.getNamesList()) {
        NameRecord rec = txn.name(name);
        if (rec != null && isHolder(rec, lease.getId())) {
          long delay = kind == Kind.EXPIRED ? rec.getHolder().getLockDelayMs() : 0;
          NameRecord freed = rec.toBuilder().clearHolder().setLockDelayMs(delay)
              .setLockDelayStartIndex(delay > 0 ? index : 0).build();
          events.add(new ChangeEvent(kind, name, null, index, lease.getId()));
          if (delay > 0) {
            // Chubby's lock-delay: an expired holder may still be acting, so nobody takes the name yet.
            lockDelays.add(freed);
            txn.putName(freed);
          } else {
            store(promote(freed));
          }
        }
      }
      txn.deleteLease(lease.getId());
      ended.add(lease.getId());
      events.add(new ChangeEvent(Kind.LEASE_ENDED, "", null, index, lease.getId()));
    }
  }

  private Result.Builder campaign(Campaign c) {
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
      Result.Builder refusal = refuseGrant(c.getTtlMs(), c.getMaxLeases());
      if (refusal != null) {
        return refusal;
      }
      lease = LeaseRecord.newBuilder().setId(peekLeaseId()).setTtlMs(c.getTtlMs()).build();
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
    // A retried campaign keeps the position it already has (idempotent per name and lease).
    if (isHolder(rec, leaseId)) {
      return nameResult(rec).setElected(true);
    }
    if (rec.getCandidatesList().stream().anyMatch(x -> x.getLeaseId() == leaseId)) {
      return nameResult(rec);
    }
    // a free name with candidates is reserved for a CampaignAll candidate at the head of its line
    boolean free = !rec.hasHolder() && rec.getLockDelayMs() == 0 && rec.getCandidatesCount() == 0;
    if (!free && c.getNoWait()) {
      // A try-campaign must not leave a candidacy behind: it could be elected after "not elected" was answered.
      return nameResult(rec);
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
          .setToken(index).setSinceIndex(index).setLockDelayMs(c.getLockDelayMs()).build();
      NameRecord taken = rec.toBuilder().setHolder(h).build();
      txn.putName(taken);
      events.add(new ChangeEvent(Kind.ELECTED, c.getName(), h, index, leaseId));
      result = nameResult(taken).setElected(true);
    } else {
      NameRecord queued = rec.toBuilder().addCandidates(Candidate.newBuilder().setLeaseId(leaseId)
          .setValue(c.getValue()).setRegisteredIndex(index).setLockDelayMs(c.getLockDelayMs())).build();
      txn.putName(queued);
      result = nameResult(queued);
    }
    if (ownLease) {
      txn.setLastLeaseId(leaseId);
      grants.add(registered);
      result.setLeaseId(leaseId);
    }
    return result;
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

  private Result.Builder proclaim(Proclaim p) {
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
    events.add(new ChangeEvent(Kind.PROCLAIMED, p.getName(), h, index, h.getLeaseId()));
    return nameResult(updated).setElected(true);
  }

  private Result.Builder resign(Resign r) {
    NameRecord rec = txn.name(r.getName());
    Result.Builder refusal = checkToken(rec, r.getName(), r.getToken());
    if (refusal != null) {
      return refusal;
    }
    long leaseId = rec.getHolder().getLeaseId();
    LeaseRecord lease = txn.lease(leaseId);
    if (lease != null) {
      txn.putLease(withoutName(lease, r.getName()));
    }
    events.add(new ChangeEvent(Kind.RESIGNED, r.getName(), null, index, leaseId));
    NameRecord after = promote(rec.toBuilder().clearHolder().build());
    store(after);
    if (r.getRevokeLease() && lease != null) {
      // The name is already passed on, so the revocation frees only the lease's other names and candidacies.
      endLeases(List.of(txn.lease(leaseId)), Kind.REVOKED);
      return nameResult(after).setLeaseId(leaseId);
    }
    return nameResult(after);
  }

  private Result.Builder withdraw(Withdraw w) {
    NameRecord rec = txn.name(w.getName());
    if (rec == null || isHolder(rec, w.getLeaseId())) {
      // Withdrawing touches only a waiting candidacy; a holder leaves by Resign.
      return rec == null ? Result.newBuilder() : nameResult(rec).setElected(true);
    }
    List<String> names = rec.getCandidatesList().stream().filter(c -> c.getLeaseId() == w.getLeaseId())
        .findFirst().filter(c -> c.getAllNamesCount() > 0).map(c -> (List<String>) c.getAllNamesList())
        .orElse(List.of(w.getName()));
    LeaseRecord lease = txn.lease(w.getLeaseId());
    for (String name : names) {
      // a CampaignAll candidacy is one candidate: it leaves the line of every one of its names
      NameRecord r = txn.name(name);
      if (r != null) {
        store(promote(withoutCandidate(r, w.getLeaseId())));
      }
      if (lease != null) {
        lease = withoutName(lease, name);
      }
    }
    if (lease != null) {
      txn.putLease(lease);
    }
    NameRecord after = txn.name(w.getName());
    return nameResult(after != null ? after : NameRecord.newBuilder().setName(w.getName()).build());
  }

  private Result.Builder freshToken(FreshToken f) {
    NameRecord rec = txn.name(f.getName());
    Result.Builder refusal = checkToken(rec, f.getName(), f.getToken());
    if (refusal != null) {
      return refusal;
    }
    Holder h = rec.getHolder().toBuilder().setToken(index).build();
    NameRecord updated = rec.toBuilder().setHolder(h).build();
    txn.putName(updated);
    events.add(new ChangeEvent(Kind.TOKEN_REFRESHED, f.getName(), h, index, h.getLeaseId()));
    return nameResult(updated).setElected(true);
  }

  private Result.Builder endLockDelay(EndLockDelay end) {
    if (end.getProposerTerm() != term) {
      return error(Code.FAILED_PRECONDITION, "lock-delay end decided in term " + end.getProposerTerm()
          + ", applied in " + term);
    }
    NameRecord rec = txn.name(end.getName());
    if (rec == null || rec.getLockDelayMs() == 0 || rec.getLockDelayStartIndex() != end.getDelayStartIndex()) {
      // No delay, or a newer one than this entry was aimed at: a late or retried copy ends nothing.
      return Result.newBuilder();
    }
    NameRecord after = promote(rec.toBuilder().setLockDelayMs(0).setLockDelayStartIndex(0).build());
    store(after);
    return nameResult(after);
  }

  /**
   * Writes what a Confirm entry changes, then answers what it reads ({@link ConfirmRead}) from the state after
   * that write, as the leader's local answer reads it without an entry.
   */
  private Result.Builder confirm(Confirm c) {
    for (long id : c.getRenewLeaseIdsList()) {
      LeaseRecord lease = txn.lease(id);
      if (lease != null && lease.getTtlMs() >= Limits.CHECKPOINT_MIN_TTL_MS) {
        // The keepalive is acknowledged after this entry: no successor may resume from an older checkpoint.
        // (Answered under the leadership lease, with no entry, a Confirm writes nothing: the lease clock sends
        // the renewal of a checkpointed lease through an entry instead, LocalConfirm.)
        txn.putLease(lease.toBuilder().setCheckpointRemainingMs(0).setRenewedIndex(index).build());
      }
    }
    ConfirmRead.Answer read = ConfirmRead.read(txn, c, index, term);
    renewed.addAll(read.renewed());
    queried.addAll(read.queried());
    return read.result().toBuilder();
  }

  private Result.Builder checkpoint(LeaseCheckpoint c) {
    if (c.getProposerTerm() != term) {
      return error(Code.FAILED_PRECONDITION, "checkpoint measured in term " + c.getProposerTerm() + ", applied in "
          + term);
    }
    for (Checkpoint cp : c.getCheckpointsList()) {
      LeaseRecord lease = txn.lease(cp.getLeaseId());
      if (lease != null && lease.getRenewedIndex() == cp.getRenewedIndex() && cp.getRemainingMs() > 0
          && cp.getRemainingMs() <= lease.getTtlMs()) {
        txn.putLease(lease.toBuilder().setCheckpointRemainingMs(cp.getRemainingMs()).build());
      }
    }
    return Result.newBuilder();
  }

  /** Passes a free name to its first candidate; every candidate is live (ended leases are withdrawn). */
  private NameRecord promote(NameRecord rec) {
    if (rec.hasHolder() || rec.getCandidatesCount() == 0 || rec.getLockDelayMs() > 0) {
      return rec;
    }
    Candidate next = rec.getCandidates(0);
    if (next.getAllNamesCount() > 0) {
      return new AllNames(txn, index, events).promote(rec);
    }
    Holder h = Holder.newBuilder().setLeaseId(next.getLeaseId()).setValue(next.getValue())
        .setToken(index).setSinceIndex(index).setLockDelayMs(next.getLockDelayMs()).build();
    events.add(new ChangeEvent(Kind.ELECTED, rec.getName(), h, index, next.getLeaseId()));
    return rec.toBuilder().setHolder(h).removeCandidates(0).build();
  }

  private Result.Builder checkToken(NameRecord rec, String name, long token) {
    if (rec == null || !rec.hasHolder()) {
      return error(Code.FAILED_PRECONDITION, "name '" + name + "' has no holder");
    }
    if (rec.getHolder().getToken() != token) {
      return error(Code.FAILED_PRECONDITION, "token " + token + " is not the holder's token of '" + name
          + "' (current " + rec.getHolder().getToken() + ")");
    }
    return null;
  }

  private void store(NameRecord rec) {
    if (!rec.hasHolder() && rec.getCandidatesCount() == 0 && rec.getLockDelayMs() == 0) {
      txn.deleteName(rec.getName());
    } else {
      txn.putName(rec);
    }
  }

  private static boolean isHolder(NameRecord rec, long leaseId) {
    return rec.hasHolder() && rec.getHolder().getLeaseId() == leaseId;
  }

  private static NameRecord withoutCandidate(NameRecord rec, long leaseId) {
    NameRecord.Builder b = rec.toBuilder().clearCandidates();
    rec.getCandidatesList().stream().filter(c -> c.getLeaseId() != leaseId).forEach(b::addCandidates);
    return b.build();
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

  private static Result.Builder nameResult(NameRecord rec) {
    return Result.newBuilder().setName(rec);
  }

  private static Result.Builder error(Code code, String message) {
    return Result.newBuilder().setCode(code).setMessage(message);
  }

  private static String firstNonNull(String a, String b) {
    return a != null ? a : b;
  }
}
