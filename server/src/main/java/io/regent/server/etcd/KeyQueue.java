package io.regent.server.etcd;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.Compare;
import io.etcd.jetcd.api.DeleteRangeRequest;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RequestOp;
import io.etcd.jetcd.api.TxnRequest;
import io.regent.statemachine.kv.KvRead;
import io.regent.statemachine.proto.KvAnswer;
import io.regent.statemachine.proto.KvRange;
import io.regent.statemachine.proto.KvRecord;
import io.regent.statemachine.proto.KvTxn;
import io.regent.statemachine.store.KvTable;

/**
 * The KV requests of a queue of keys under one prefix, the way etcd's {@code concurrency} package writes its {@code
 * Election} and {@code Mutex} (docs/migrating.md "etcd's Election and Lock"): a contender puts its key {@code
 * NAME/LEASE} if absent, and it leads (holds the lock) once no key under {@code NAME/} has a smaller {@code
 * create_revision}. A key instance is named by its create revision, which never moves while it lives and is never
 * given to another: a write guarded by it ({@link #ifCreatedAt}) touches that instance and no later one. Every
 * request goes through {@link KvRequests}, so an oversized name or value is refused with etcd's text.
 */
final class KeyQueue {
  /** Where a key stands in its queue. */
  enum Turn {
    /** A key created before it is still there. */
    WAITING,
    /** No key under the prefix was created before it: it leads, or holds the lock. */
    FIRST,
    /** It is gone (deleted, or its lease ended), or a later instance of it replaced it. */
    GONE
  }

  private KeyQueue() {
  }

  /**
   * Joins the queue of {@code prefix}: puts {@code key} with {@code value} and {@code lease} unless it exists, then
   * reads the first key of the queue. Success responses: the put, the first key; failure: the key as it is, the
   * first key.
   */
  static KvTxn join(ByteString prefix, ByteString key, ByteString value, long lease) {
    RequestOp first = RequestOp.newBuilder().setRequestRange(firstRequest(prefix)).build();
    return KvRequests.txn(TxnRequest.newBuilder().addCompare(createdAt(key, 0))
        .addSuccess(put(key, value, lease)).addSuccess(first)
        .addFailure(RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(key))).addFailure(first)
        .build());
  }

  /** A Txn that applies {@code op} only while {@code key}'s create revision is {@code rev}. */
  static KvTxn ifCreatedAt(ByteString key, long rev, RequestOp op) {
    return KvRequests.txn(TxnRequest.newBuilder().addCompare(createdAt(key, rev)).addSuccess(op).build());
  }

  /** A Put of {@code key} with {@code value} and {@code lease}. */
  static RequestOp put(ByteString key, ByteString value, long lease) {
    return RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(key).setValue(value).setLease(lease))
        .build();
  }

  /** A delete of {@code key}. */
  static RequestOp delete(ByteString key) {
    return RequestOp.newBuilder().setRequestDeleteRange(DeleteRangeRequest.newBuilder().setKey(key)).build();
  }

  /** The range of the first key under {@code prefix}, by create revision: the leader, or the lock's holder. */
  static KvRange first(ByteString prefix) {
    return KvRequests.range(firstRequest(prefix));
  }

  /** The first key under {@code prefix} in {@code table}, or {@code null} when there is none. */
  static KvRecord first(KvTable table, ByteString prefix) {
    KvAnswer a = KvRead.range(table, first(prefix)).build();
    return a.getKvsCount() == 0 ? null : a.getKvs(0);
  }

  /** Where {@code key}, created at {@code rev}, stands in the queue of {@code prefix} as {@code table} has it. */
  static Turn turn(KvTable table, ByteString prefix, ByteString key, long rev) {
    KvRecord own = table.get(key.toByteArray());
    if (own == null || own.getCreateRevision() != rev) {
      return Turn.GONE;
    }
    KvRecord first = first(table, prefix);
    return first.getCreateRevision() < rev ? Turn.WAITING : Turn.FIRST;
  }

  private static RangeRequest firstRequest(ByteString prefix) {
    return RangeRequest.newBuilder().setKey(prefix).setRangeEnd(EtcdKeys.rangeEnd(prefix))
        .setSortTarget(RangeRequest.SortTarget.CREATE).setSortOrder(RangeRequest.SortOrder.ASCEND).setLimit(1)
        .build();
  }

  private static Compare createdAt(ByteString key, long rev) {
    return Compare.newBuilder().setKey(key).setTarget(Compare.CompareTarget.CREATE)
        .setResult(Compare.CompareResult.EQUAL).setCreateRevision(rev).build();
  }
}
