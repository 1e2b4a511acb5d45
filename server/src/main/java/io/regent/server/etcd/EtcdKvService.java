package io.regent.server.etcd;

import io.etcd.jetcd.api.CompactionRequest;
import io.etcd.jetcd.api.CompactionResponse;
import io.etcd.jetcd.api.DeleteRangeRequest;
import io.etcd.jetcd.api.DeleteRangeResponse;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.PutResponse;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RangeResponse;
import io.etcd.jetcd.api.TxnRequest;
import io.etcd.jetcd.api.TxnResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.regent.server.api.StatusCodes;
import io.regent.statemachine.kv.KvErrors;
import io.regent.statemachine.kv.KvRead;
import io.regent.statemachine.proto.KvAnswer;
import io.regent.statemachine.proto.KvCompact;
import io.regent.statemachine.proto.KvRange;
import io.regent.statemachine.proto.KvTxn;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.store.KvTable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * etcd's {@code etcdserverpb.KV} service on Regent's replicated keyspace (docs/migrating.md "etcd's KV"). Unlike the
 * Lease, Election and Lock gateways it is no relay: the keyspace has no counterpart in Regent's API, so writes are
 * log entries of version 5 proposed from here (each with a request id this node makes, so that its re-sends apply
 * once) and ranges read through the API's read path, linearizable unless {@code serializable}. Revisions are log
 * indexes. A write while a voter applies no version 5 (a rolling upgrade under way) is FAILED_PRECONDITION; a Range
 * at a revision below the compaction point is OUT_OF_RANGE "compacted", past the state read "future revision",
 * anywhere else but the state read UNIMPLEMENTED (no history is kept).
 */
final class EtcdKvService extends KVGrpc.KVImplBase {
  private final Headers headers;
  private final EtcdKv kv;

  EtcdKvService(Headers headers, EtcdKv kv) {
    this.headers = headers;
    this.kv = kv;
  }

  @Override
  public void range(RangeRequest req, StreamObserver<RangeResponse> obs) {
    AnswerRelay.future(obs, () -> {
      KvRange range = KvRequests.range(req);
      long revision = req.getRevision();
      return kv.reader().read(req.getSerializable(), txn -> {
        KvTable table = txn.kv();
        long applied = txn.appliedIndex();
        if (revision != 0 && revision != applied) {
          throw revision < table.compacted() ? outOfRange(KvErrors.COMPACTED)
              : revision > applied ? outOfRange(KvErrors.FUTURE_REVISION)
              : KvRequests.unimplemented("a Range at a past revision (" + revision + "; the keyspace is at "
                  + applied + ")");
        }
        return KvResponses.range(headers.at(applied), KvRead.range(table, range).build());
      });
    });
  }

  @Override
  public void put(PutRequest req, StreamObserver<PutResponse> obs) {
    AnswerRelay.future(obs, () -> write(LogEntry.newBuilder().setKvPut(KvRequests.put(req)),
        r -> KvResponses.put(headers.at(r.getIndex()), r.getKv())));
  }

  @Override
  public void deleteRange(DeleteRangeRequest req, StreamObserver<DeleteRangeResponse> obs) {
    AnswerRelay.future(obs, () -> write(LogEntry.newBuilder().setKvDeleteRange(KvRequests.deleteRange(req)),
        r -> KvResponses.deleteRange(headers.at(r.getIndex()), r.getKv())));
  }

  @Override
  public void txn(TxnRequest req, StreamObserver<TxnResponse> obs) {
    AnswerRelay.future(obs, () -> {
      KvTxn txn = KvRequests.txn(req);
      return write(LogEntry.newBuilder().setKvTxn(txn), r -> {
        KvAnswer a = r.getKv();
        return KvResponses.txn(headers.at(r.getIndex()), a, a.getSucceeded() ? txn.getSuccessList()
            : txn.getFailureList());
      });
    });
  }

  @Override
  public void compact(CompactionRequest req, StreamObserver<CompactionResponse> obs) {
    AnswerRelay.future(obs, () -> write(LogEntry.newBuilder().setKvCompact(KvCompact.newBuilder().setRevision(req.getRevision())),
        r -> CompactionResponse.newBuilder().setHeader(headers.at(r.getIndex())).build()));
  }

  /** Proposes {@code entry} ({@link EtcdKv#write}) and makes the answer of its result. */
  private <T> CompletableFuture<T> write(LogEntry.Builder entry, Function<Result, T> answer) {
    return kv.write(entry).thenApply(answer);
  }

  private static StatusRuntimeException outOfRange(String message) {
    return Status.OUT_OF_RANGE.withDescription(message).asRuntimeException();
  }
}
