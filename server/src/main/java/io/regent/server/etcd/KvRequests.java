package io.regent.server.etcd;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.Compare;
import io.etcd.jetcd.api.DeleteRangeRequest;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RequestOp;
import io.etcd.jetcd.api.TxnRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.statemachine.kv.KvErrors;
import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.KvCompare;
import io.regent.statemachine.proto.KvDeleteRange;
import io.regent.statemachine.proto.KvOp;
import io.regent.statemachine.proto.KvPut;
import io.regent.statemachine.proto.KvRange;
import io.regent.statemachine.proto.KvTxn;
import io.regent.statemachine.store.KvTable;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * etcd's KV requests checked as etcd checks them, with etcd's own error texts (INVALID_ARGUMENT), and turned into
 * the log entry's operations (docs/migrating.md "etcd's KV"). What Regent does not serve is UNIMPLEMENTED with a
 * message naming it. A refused request proposes nothing, so it changes nothing.
 *
 * <p>Sizes: a key longer than {@link KvTable#MAX_KEY_BYTES} or a value longer than {@link Limits#MAX_VALUE_BYTES}
 * (a value's limit in Regent's API, docs/api.md) is refused with etcd's own text for a request above its size
 * limit, {@link #TOO_LARGE}, so that etcd's clients report it as they would etcd's (Go's {@code
 * rpctypes.ErrRequestTooLarge}), and so is a Txn above {@link #MAX_TXN_BYTES}, etcd's default request limit; a Txn is
 * held to {@link #MAX_TXN_OPS} as etcd holds it.
 */
final class KvRequests {
  /** Operations per Txn branch, at most: etcd's default {@code --max-txn-ops}. */
  static final int MAX_TXN_OPS = 128;
  /**
   * Largest Txn accepted, bytes as encoded: etcd's default {@code --max-request-bytes} (1.5 MiB). Without it a Txn
   * up to the port's message limit (the API's, 4 MiB by default) would be one log entry; a single Put cannot get
   * near it.
   */
  static final int MAX_TXN_BYTES = 1536 * 1024;
  /** etcd's description for a request above its size limit ({@code rpctypes.ErrGRPCRequestTooLarge}). */
  static final String TOO_LARGE = "etcdserver: request is too large";

  private KvRequests() {
  }

  /** A Range as the state machine reads it; {@code revision} is the caller's to judge. */
  static KvRange range(RangeRequest r) {
    checkKey(r.getKey());
    if (r.getSortOrderValue() < 0 || r.getSortOrderValue() > 2 || r.getSortTargetValue() < 0
        || r.getSortTargetValue() > 4) {
      throw invalid("etcdserver: invalid sort option");
    }
    return KvRange.newBuilder().setKey(r.getKey()).setRangeEnd(r.getRangeEnd()).setLimit(Math.max(0, r.getLimit()))
        .setSortOrder(r.getSortOrderValue()).setSortTarget(r.getSortTargetValue()).setKeysOnly(r.getKeysOnly())
        .setCountOnly(r.getCountOnly()).setMinModRevision(r.getMinModRevision())
        .setMaxModRevision(r.getMaxModRevision()).setMinCreateRevision(r.getMinCreateRevision())
        .setMaxCreateRevision(r.getMaxCreateRevision()).build();
  }

  /**
   * A Put; refuses an empty or too long key, a value above {@link Limits#MAX_VALUE_BYTES}, and a value or lease given
   * with ignore_value or ignore_lease.
   */
  static KvPut put(PutRequest p) {
    checkKey(p.getKey());
    if (p.getValue().size() > Limits.MAX_VALUE_BYTES) {
      throw invalid(TOO_LARGE);
    }
    if (p.getIgnoreValue() && !p.getValue().isEmpty()) {
      throw invalid("etcdserver: value is provided");
    }
    if (p.getIgnoreLease() && p.getLease() != 0) {
      throw invalid("etcdserver: lease is provided");
    }
    return KvPut.newBuilder().setKey(p.getKey()).setValue(p.getValue()).setLease(p.getLease())
        .setPrevKv(p.getPrevKv()).setIgnoreValue(p.getIgnoreValue()).setIgnoreLease(p.getIgnoreLease()).build();
  }

  /** A DeleteRange; refuses an empty key. */
  static KvDeleteRange deleteRange(DeleteRangeRequest d) {
    checkKey(d.getKey());
    return KvDeleteRange.newBuilder().setKey(d.getKey()).setRangeEnd(d.getRangeEnd()).setPrevKv(d.getPrevKv()).build();
  }

  /**
   * A Txn: at most {@link #MAX_TXN_OPS} compares and as many operations a branch (etcd's {@code --max-txn-ops}
   * counts both), no key put twice nor put and deleted in one branch (etcd's "duplicate key"), every operation
   * checked as alone; a nested Txn or a Range at a revision is UNIMPLEMENTED.
   */
  static KvTxn txn(TxnRequest t) {
    if (t.getCompareCount() > MAX_TXN_OPS || t.getSuccessCount() > MAX_TXN_OPS
        || t.getFailureCount() > MAX_TXN_OPS) {
      throw invalid("etcdserver: too many operations in txn request");
    }
    if (t.getSerializedSize() > MAX_TXN_BYTES) {
      throw invalid(TOO_LARGE);
    }
    KvTxn.Builder out = KvTxn.newBuilder();
    for (Compare c : t.getCompareList()) {
      out.addCompares(compare(c));
    }
    out.addAllSuccess(branch(t.getSuccessList()));
    out.addAllFailure(branch(t.getFailureList()));
    return out.build();
  }

  private static KvCompare compare(Compare c) {
    checkKey(c.getKey());
    if (c.getResultValue() < 0 || c.getResultValue() > 3) {
      throw invalid("etcdserver: unknown compare result " + c.getResultValue());
    }
    KvCompare.Builder k = KvCompare.newBuilder().setKey(c.getKey()).setRangeEnd(c.getRangeEnd())
        .setResult(c.getResultValue()).setTarget(c.getTargetValue());
    switch (c.getTarget()) {
      case VERSION -> k.setNumber(c.getVersion());
      case CREATE -> k.setNumber(c.getCreateRevision());
      case MOD -> k.setNumber(c.getModRevision());
      case VALUE -> k.setValue(c.getValue());
      default -> throw invalid("etcdserver: unknown compare target " + c.getTargetValue());
    }
    return k.build();
  }

  private static List<KvOp> branch(List<RequestOp> ops) {
    Set<ByteString> put = new HashSet<>();
    List<KvOp> out = ops.stream().map(op -> switch (op.getRequestCase()) {
      case REQUEST_RANGE -> {
        if (op.getRequestRange().getRevision() != 0) {
          throw unimplemented("a Range at a past revision inside a Txn");
        }
        yield KvOp.newBuilder().setRange(range(op.getRequestRange())).build();
      }
      case REQUEST_PUT -> {
        if (!put.add(op.getRequestPut().getKey())) {
          throw invalid("etcdserver: duplicate key given in txn request");
        }
        yield KvOp.newBuilder().setPut(put(op.getRequestPut())).build();
      }
      case REQUEST_DELETE_RANGE -> KvOp.newBuilder().setDeleteRange(deleteRange(op.getRequestDeleteRange())).build();
      case REQUEST_TXN -> throw unimplemented("a Txn inside a Txn");
      case REQUEST_NOT_SET -> throw invalid("etcdserver: a txn operation has no request");
    }).toList();
    for (KvOp op : out) {
      if (op.hasDeleteRange() && put.stream().anyMatch(k -> within(k, op.getDeleteRange()))) {
        throw invalid("etcdserver: duplicate key given in txn request");
      }
    }
    return out;
  }

  /** Whether {@code key} is in the delete's range (etcd's key-range rules). */
  private static boolean within(ByteString key, KvDeleteRange d) {
    var order = ByteString.unsignedLexicographicalComparator();
    if (d.getRangeEnd().isEmpty()) {
      return key.equals(d.getKey());
    }
    boolean toEnd = d.getRangeEnd().equals(ByteString.copyFrom(new byte[] {0}));
    return order.compare(key, d.getKey()) >= 0 && (toEnd || order.compare(key, d.getRangeEnd()) < 0);
  }

  private static void checkKey(ByteString key) {
    if (key.isEmpty()) {
      throw invalid(KvErrors.EMPTY_KEY);
    }
    if (key.size() > KvTable.MAX_KEY_BYTES) {
      throw invalid(TOO_LARGE);
    }
  }

  static StatusRuntimeException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
  }

  /** UNIMPLEMENTED naming what is not served (docs/migrating.md "etcd's KV"). */
  static StatusRuntimeException unimplemented(String what) {
    return Status.UNIMPLEMENTED.withDescription(what + " is not served by Regent's etcd port (docs/migrating.md)")
        .asRuntimeException();
  }
}
