package io.regent.statemachine.kv;

import com.google.protobuf.ByteString;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.KvAnswer;
import io.regent.statemachine.proto.KvCompact;
import io.regent.statemachine.proto.KvCompare;
import io.regent.statemachine.proto.KvDeleteRange;
import io.regent.statemachine.proto.KvEvent;
import io.regent.statemachine.proto.KvOp;
import io.regent.statemachine.proto.KvPut;
import io.regent.statemachine.proto.KvRecord;
import io.regent.statemachine.proto.KvTxn;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.store.KvHistory;
import io.regent.statemachine.store.KvTable;
import io.regent.statemachine.store.StateTxn;
import java.util.ArrayList;
import java.util.List;

/**
 * The rules of apply for etcd's keyspace (docs/migrating.md "etcd's KV"). Revisions are log indexes: every write
 * of an entry has the entry's index as its revision; a key it creates gets that index as {@code create_revision},
 * which never moves while the key lives; each put moves {@code mod_revision} to the index and adds one to
 * {@code version}. A key attached to a lease is deleted by the entry that ends the lease ({@link #leasesEnded}).
 * Each put and delete is a watch event, recorded in the {@link KvHistory} under the entry's index in the order it
 * happened (docs/migrating.md "etcd's Watch"), and the entry publishes a {@link ChangeEvent.Kind#KV_CHANGED}; a
 * compaction drops the history below its point. A refusal changes nothing. Pure: a function of the state, the entry
 * and its index.
 *
 * <p>Not thread-safe: one instance per rule applied, on the apply thread.
 */
public final class KvRules {
  private final StateTxn txn;
  private final long index;
  private final List<ChangeEvent> changes;
  /** The watch events of the operation being applied, recorded when it is kept. */
  private final List<KvEvent> events = new ArrayList<>();

  /**
   * @param txn the apply's write transaction
   * @param index the entry's log index: the revision of every write it makes
   * @param changes the entry's events, where a write of the keyspace adds its {@link ChangeEvent.Kind#KV_CHANGED}
   */
  public KvRules(StateTxn txn, long index, List<ChangeEvent> changes) {
    this.txn = txn;
    this.index = index;
    this.changes = changes;
  }

  /**
   * Sets a key ({@link KvPut}); NOT_FOUND for a lease that is not live, INVALID_ARGUMENT for a bad key and for
   * ignore_value or ignore_lease on a key that does not exist (etcd's "key not found").
   */
  public Result.Builder put(KvPut p) {
    Result.Builder bad = refusePut(txn, p);
    if (bad != null) {
      return bad;
    }
    KvAnswer.Builder answer = putNow(txn.kv(), p);
    record();
    return ok(answer);
  }

  /** Deletes the keys of a range ({@link KvDeleteRange}); INVALID_ARGUMENT for an empty key. */
  public Result.Builder deleteRange(KvDeleteRange d) {
    Result.Builder bad = refuseKey(d.getKey());
    if (bad != null) {
      return bad;
    }
    KvAnswer.Builder answer = deleteNow(txn.kv(), d);
    record();
    return ok(answer);
  }

  /**
   * Applies a Txn: the success ops when every compare holds, else the failure ops, in order, in this entry. When
   * one op is refused (a put's lease is not live) none applies and the refusal is the answer.
   */
  public Result.Builder txn(KvTxn t) {
    for (KvCompare c : t.getComparesList()) {
      Result.Builder bad = refuseKey(c.getKey());
      if (bad != null) {
        return bad;
      }
    }
    boolean succeeded = t.getComparesList().stream().allMatch(c -> KvCompares.holds(txn.kv(), c));
    List<KvOp> ops = succeeded ? t.getSuccessList() : t.getFailureList();
    KvAnswer.Builder out = KvAnswer.newBuilder().setSucceeded(succeeded);
    Result.Builder[] refused = new Result.Builder[1];
    txn.nested(child -> {
      KvTable kv = child.kv();
      for (KvOp op : ops) {
        Result.Builder bad = switch (op.getOpCase()) {
          case PUT -> refusePut(child, op.getPut());
          case RANGE -> refuseKey(op.getRange().getKey());
          case DELETE_RANGE -> refuseKey(op.getDeleteRange().getKey());
          case OP_NOT_SET -> error(Code.INVALID_ARGUMENT, "etcdserver: a txn operation has no request");
        };
        if (bad != null) {
          refused[0] = bad;
          events.clear(); // the branch's writes are undone, and so are their events
          return false;
        }
        out.addResponses(switch (op.getOpCase()) {
          case PUT -> putNow(kv, op.getPut());
          case RANGE -> KvRead.range(kv, op.getRange());
          default -> deleteNow(kv, op.getDeleteRange());
        });
      }
      return true;
    });
    if (refused[0] != null) {
      return refused[0];
    }
    record();
    return ok(out);
  }

  /**
   * Moves the compaction point to {@code c.revision}: OUT_OF_RANGE when it is at or below the current point
   * ("compacted") or past this entry's index ("future revision"), as etcd refuses them.
   */
  public Result.Builder compact(KvCompact c) {
    KvTable kv = txn.kv();
    if (c.getRevision() <= kv.compacted()) {
      return error(Code.OUT_OF_RANGE, KvErrors.COMPACTED);
    }
    if (c.getRevision() > index) {
      return error(Code.OUT_OF_RANGE, KvErrors.FUTURE_REVISION);
    }
    kv.setCompacted(c.getRevision());
    txn.kvHistory().compact(c.getRevision());
    return ok(KvAnswer.newBuilder());
  }

  /** Deletes every key attached to the {@code leases} this entry ends (revoked or expired), in lease then key order. */
  public void leasesEnded(List<LeaseRecord> leases) {
    KvTable kv = txn.kv();
    for (LeaseRecord lease : leases) {
      for (byte[] key : kv.keysOf(lease.getId())) {
        deleted(kv, kv.get(key));
      }
    }
    record();
  }

  /** Why {@code key} cannot be looked up (empty, or longer than LMDB keys may be), or {@code null}. */
  private static Result.Builder refuseKey(ByteString key) {
    if (key.isEmpty()) {
      return error(Code.INVALID_ARGUMENT, KvErrors.EMPTY_KEY);
    }
    if (key.size() > KvTable.MAX_KEY_BYTES) {
      return error(Code.INVALID_ARGUMENT, "etcdserver: key is too long (" + key.size() + " bytes; at most "
          + KvTable.MAX_KEY_BYTES + ")");
    }
    return null;
  }

  private static Result.Builder refusePut(StateTxn txn, KvPut p) {
    Result.Builder bad = refuseKey(p.getKey());
    if (bad != null) {
      return bad;
    }
    if (p.getLease() != 0 && !p.getIgnoreLease() && txn.lease(p.getLease()) == null) {
      return error(Code.NOT_FOUND, KvErrors.LEASE_NOT_FOUND);
    }
    if ((p.getIgnoreValue() || p.getIgnoreLease()) && txn.kv().get(p.getKey().toByteArray()) == null) {
      return error(Code.INVALID_ARGUMENT, KvErrors.KEY_NOT_FOUND);
    }
    return null;
  }

  private KvAnswer.Builder putNow(KvTable kv, KvPut p) {
    KvRecord prev = kv.get(p.getKey().toByteArray());
    KvRecord.Builder next = KvRecord.newBuilder().setKey(p.getKey()).setModRevision(index)
        .setValue(p.getIgnoreValue() ? prev.getValue() : p.getValue())
        .setLease(p.getIgnoreLease() ? (prev == null ? 0 : prev.getLease()) : p.getLease())
        .setCreateRevision(prev == null ? index : prev.getCreateRevision())
        .setVersion(prev == null ? 1 : prev.getVersion() + 1);
    KvRecord rec = next.build();
    kv.put(rec, prev == null ? 0 : prev.getLease());
    KvEvent.Builder e = KvEvent.newBuilder().setKv(rec);
    if (prev != null) {
      e.setPrevKv(prev);
    }
    events.add(e.build());
    KvAnswer.Builder out = KvAnswer.newBuilder();
    if (p.getPrevKv() && prev != null) {
      out.setPrevKv(prev);
    }
    return out;
  }

  private KvAnswer.Builder deleteNow(KvTable kv, KvDeleteRange d) {
    List<KvRecord> gone = KeyRanges.records(kv, d.getKey(), d.getRangeEnd());
    KvAnswer.Builder out = KvAnswer.newBuilder().setDeleted(gone.size());
    for (KvRecord rec : gone) {
      deleted(kv, rec);
      if (d.getPrevKv()) {
        out.addPrevKvs(rec);
      }
    }
    return out;
  }

  /** Deletes {@code rec}'s key; its event carries the key at this revision, as etcd's DELETE events do. */
  private void deleted(KvTable kv, KvRecord rec) {
    kv.delete(rec);
    events.add(KvEvent.newBuilder().setDelete(true)
        .setKv(KvRecord.newBuilder().setKey(rec.getKey()).setModRevision(index)).setPrevKv(rec).build());
  }

  /**
   * Records the kept operation's events in the history under this entry's index and says the keyspace changed;
   * nothing when it changed no key (a Range, a Txn of ranges, a delete of nothing).
   */
  private void record() {
    if (!events.isEmpty()) {
      txn.kvHistory().append(index, events);
      changes.add(new ChangeEvent(ChangeEvent.Kind.KV_CHANGED, "", null, index, 0));
      events.clear();
    }
  }

  private static Result.Builder ok(KvAnswer.Builder answer) {
    return Result.newBuilder().setKv(answer);
  }

  private static Result.Builder error(Code code, String message) {
    return Result.newBuilder().setCode(code).setMessage(message);
  }
}
