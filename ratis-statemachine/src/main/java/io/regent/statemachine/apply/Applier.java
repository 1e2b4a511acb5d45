package io.regent.statemachine.apply;

import static io.regent.statemachine.apply.Results.error;

import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.group.GroupApplier;
import io.regent.statemachine.kv.KvRules;
import io.regent.statemachine.proto.Batch;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.store.StateTxn;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Applies one log entry to Regent's state: a pure function of (state, entry, entry index, entry term).
 *
 * <p>No clock, no randomness, no I/O but the given transaction: every replica that applies the same log
 * reaches byte-identical LMDB contents. Ownership passes only here, and the new holder's fencing token is
 * the index of the entry being applied, so tokens strictly increase per name and globally (docs/architecture.md
 * §2.4, §9; Kleppmann, "How to do distributed locking"). Business refusals are results, never exceptions.
 *
 * <p>This class dispatches each entry to the rules of its subject — {@link LeaseRules}, {@link NameRules},
 * {@link CampaignAllRule}, {@link MemberRules}, the ownership groups' {@link GroupApplier} and etcd's keyspace's
 * {@link KvRules} — and runs batch
 * entries; what an entry produced is collected in one {@link Effects}.
 *
 * <p>Not thread-safe: call on Ratis's single apply thread.
 */
public final class Applier {
  private Applier() {
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
    return apply(txn, entry, index, term, unsafeSkipRelease, 0);
  }

  /**
   * As {@link #apply(StateTxn, LogEntry, long, long, boolean)}, for a replica of a cell whose lease ids start at
   * {@code leaseIdBase}: a lease granted at index {@code i} gets an id of at least {@code leaseIdBase + i}
   * (docs/architecture.md §14, "Cells"). Every replica of a cell's log must pass the same value.
   */
  public static ApplyOutcome apply(StateTxn txn, LogEntry entry, long index, long term, boolean unsafeSkipRelease,
                                   long leaseIdBase) {
    if (entry.getVersion() > EntryCodec.MAX_VERSION) {
      throw new UnknownEntryVersionException(entry.getVersion(), index);
    }
    ApplyContext at = new ApplyContext(txn, index, term, unsafeSkipRelease, leaseIdBase, new Effects());
    Result result = entry.getVersion() >= EntryCodec.BATCH_VERSION && entry.hasBatch()
        ? batch(at, entry).setIndex(index).build() : once(at, entry).build();
    return at.effects().outcome(result);
  }

  /**
   * Applies a batch entry's operations in order, each in a nested transaction, each with its own result
   * (docs/architecture.md §2.6). The token rule holds literally: an operation that would give a name (or move
   * a group's partitions) a token an earlier operation of the batch already gave it — two grants of one name at
   * one index — is undone and answered {@link Code#BATCH_CONFLICT}, for its proposer to send again alone. Only
   * the operations {@link EntryCodec#batchable} admits may be in a batch; any other is refused.
   */
  private static Result.Builder batch(ApplyContext at, LogEntry entry) {
    Batch b = entry.getBatch();
    long index = at.index();
    Set<String> tokened = new HashSet<>();
    Result.Builder out = Result.newBuilder();
    for (LogEntry op : b.getEntriesList()) {
      Result[] result = new Result[1];
      at.txn().nested(child -> {
        if (!EntryCodec.batchable(op) || !opVersionFits(op.getVersion(), entry.getVersion())) {
          result[0] = error(Code.INVALID_ARGUMENT, "a " + op.getCommandCase() + " entry of version "
              + op.getVersion() + " cannot be part of a batch").setIndex(index).build();
          return false;
        }
        ApplyContext opAt = new ApplyContext(child, index, at.term(), at.unsafeSkipRelease(), at.leaseIdBase(), new Effects());
        Result r = once(opAt, op).build();
        Set<String> given = tokensGiven(opAt.effects().events());
        if (given.stream().anyMatch(tokened::contains)) {
          result[0] = error(Code.BATCH_CONFLICT, "another operation of this batch changed the same owner")
              .setIndex(index).build();
          return false;
        }
        tokened.addAll(given);
        at.effects().absorb(opAt.effects());
        result[0] = r;
        return true;
      });
      out.addResults(result[0]);
    }
    return out;
  }

  /** Whether a batch of version {@code batch} may hold an operation of version {@code op}: 1, 3 or 4, none above it. */
  private static boolean opVersionFits(int op, int batch) {
    return op == EntryCodec.VERSION || op == Math.min(batch, EntryCodec.REQUEST_ID_VERSION)
        || (op == EntryCodec.ATTEMPT_ID_VERSION && batch >= EntryCodec.ATTEMPT_ID_VERSION);
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

  /**
   * Applies one operation (a single entry, or one of a batch's) once per request id ({@link RequestRule}) and once
   * per attempt ({@link AttemptRule}); the answer carries this entry's index, or a repeat's first index.
   */
  private static Result.Builder once(ApplyContext at, LogEntry e) {
    Result.Builder r = RequestRule.once(at, e, () -> AttemptRule.once(at, e, () -> dispatch(at, e)));
    return r.getReplayed() ? r : r.setIndex(at.index());
  }

  /** Applies one operation by the rules of its subject. */
  private static Result.Builder dispatch(ApplyContext at, LogEntry e) {
    if (EntryCodec.isKv(e)) {
      return kv(at, e);
    }
    if (e.getVersion() != EntryCodec.VERSION && e.getVersion() != EntryCodec.REQUEST_ID_VERSION
        && e.getVersion() != EntryCodec.ATTEMPT_ID_VERSION) {
      return error(Code.INVALID_ARGUMENT, "an entry of version " + e.getVersion() + " must be a batch");
    }
    return switch (e.getCommandCase()) {
      case GRANT -> new LeaseRules(at).grant(e.getGrant().getTtlMs(), e.getGrant().getMaxLeases());
      case REVOKE -> new LeaseRules(at).revoke(e.getRevoke().getLeaseId());
      case EXPIRE -> new LeaseRules(at).expire(e.getExpire().getLeaseIdsList(), e.getExpire().getProposerTerm());
      case CONFIRM -> new LeaseRules(at).confirm(e.getConfirm());
      case LEASE_CHECKPOINT -> new LeaseRules(at).checkpoint(e.getLeaseCheckpoint());
      case CAMPAIGN -> new NameRules(at).campaign(e.getCampaign());
      case PROCLAIM -> new NameRules(at).proclaim(e.getProclaim());
      case RESIGN -> new NameRules(at).resign(e.getResign());
      case WITHDRAW -> new NameRules(at).withdraw(e.getWithdraw());
      case FRESH_TOKEN -> new NameRules(at).freshToken(e.getFreshToken());
      case END_LOCK_DELAY -> new NameRules(at).endLockDelay(e.getEndLockDelay());
      case CAMPAIGN_ALL -> new CampaignAllRule(at).campaign(e.getCampaignAll());
      case MEMBER_API -> new MemberRules(at.txn()).api(e.getMemberApi().getMemberId(),
          e.getMemberApi().getApiAddress());
      case MEMBER_TIMING -> new MemberRules(at.txn()).timing(e.getMemberTiming());
      case GROUP_JOIN -> at.groups().join(e.getGroupJoin());
      case GROUP_LEAVE -> at.groups().leave(e.getGroupLeave());
      case GROUP_RELEASE -> at.groups().release(e.getGroupRelease());
      case BATCH -> error(Code.INVALID_ARGUMENT, "a batch entry must have version " + EntryCodec.BATCH_VERSION
          + " to " + EntryCodec.MAX_VERSION + " and may not hold another batch");
      case COMMAND_NOT_SET -> error(Code.INVALID_ARGUMENT, "log entry has no command");
      default -> error(Code.INVALID_ARGUMENT, "a " + e.getCommandCase() + " entry needs version "
          + EntryCodec.KV_VERSION);
    };
  }

  /** Applies an operation on etcd's keyspace by {@link KvRules}; only in an entry of version 5 (its own format). */
  private static Result.Builder kv(ApplyContext at, LogEntry e) {
    if (e.getVersion() != EntryCodec.KV_VERSION) {
      return error(Code.INVALID_ARGUMENT, "a " + e.getCommandCase() + " entry needs version " + EntryCodec.KV_VERSION);
    }
    KvRules rules = new KvRules(at.txn(), at.index(), at.effects().events());
    return switch (e.getCommandCase()) {
      case KV_PUT -> rules.put(e.getKvPut());
      case KV_DELETE_RANGE -> rules.deleteRange(e.getKvDeleteRange());
      case KV_TXN -> rules.txn(e.getKvTxn());
      default -> rules.compact(e.getKvCompact());
    };
  }
}
