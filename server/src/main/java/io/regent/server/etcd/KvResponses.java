package io.regent.server.etcd;

import io.etcd.jetcd.api.DeleteRangeResponse;
import io.etcd.jetcd.api.KeyValue;
import io.etcd.jetcd.api.PutResponse;
import io.etcd.jetcd.api.RangeResponse;
import io.etcd.jetcd.api.ResponseHeader;
import io.etcd.jetcd.api.ResponseOp;
import io.etcd.jetcd.api.TxnResponse;
import io.regent.statemachine.proto.KvAnswer;
import io.regent.statemachine.proto.KvOp;
import io.regent.statemachine.proto.KvRecord;
import java.util.List;

/**
 * The state machine's KV answers as etcd's responses (docs/migrating.md "etcd's KV"): every revision in them is a
 * log index, the header's that of the entry that wrote (or of the state a range read).
 */
final class KvResponses {
  private KvResponses() {
  }

  static KeyValue keyValue(KvRecord r) {
    return KeyValue.newBuilder().setKey(r.getKey()).setValue(r.getValue()).setCreateRevision(r.getCreateRevision())
        .setModRevision(r.getModRevision()).setVersion(r.getVersion()).setLease(r.getLease()).build();
  }

  static RangeResponse range(ResponseHeader header, KvAnswer a) {
    RangeResponse.Builder b = RangeResponse.newBuilder().setHeader(header).setCount(a.getCount())
        .setMore(a.getMore());
    a.getKvsList().forEach(r -> b.addKvs(keyValue(r)));
    return b.build();
  }

  static PutResponse put(ResponseHeader header, KvAnswer a) {
    PutResponse.Builder b = PutResponse.newBuilder().setHeader(header);
    if (a.hasPrevKv()) {
      b.setPrevKv(keyValue(a.getPrevKv()));
    }
    return b.build();
  }

  static DeleteRangeResponse deleteRange(ResponseHeader header, KvAnswer a) {
    DeleteRangeResponse.Builder b = DeleteRangeResponse.newBuilder().setHeader(header).setDeleted(a.getDeleted());
    a.getPrevKvsList().forEach(r -> b.addPrevKvs(keyValue(r)));
    return b.build();
  }

  /** A Txn's response: one response per operation of the branch {@code a} says applied ({@code ops}), in order. */
  static TxnResponse txn(ResponseHeader header, KvAnswer a, List<KvOp> ops) {
    TxnResponse.Builder b = TxnResponse.newBuilder().setHeader(header).setSucceeded(a.getSucceeded());
    for (int i = 0; i < a.getResponsesCount(); i++) {
      KvAnswer r = a.getResponses(i);
      b.addResponses(switch (ops.get(i).getOpCase()) {
        case RANGE -> ResponseOp.newBuilder().setResponseRange(range(header, r)).build();
        case PUT -> ResponseOp.newBuilder().setResponsePut(put(header, r)).build();
        default -> ResponseOp.newBuilder().setResponseDeleteRange(deleteRange(header, r)).build();
      });
    }
    return b.build();
  }
}
