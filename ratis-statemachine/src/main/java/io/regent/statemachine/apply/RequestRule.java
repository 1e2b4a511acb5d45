package io.regent.statemachine.apply;

import static io.regent.statemachine.apply.Results.error;

import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.RequestRecord;
import io.regent.statemachine.proto.Result;
import java.util.function.Supplier;

/**
 * Exactly-once requests (docs/api.md "Request ids"): an operation of version 3 with a request id is
 * applied once; its answer is stored with its effect, in the same transaction, and a repeat of the id is answered
 * from that record, unchanged and marked {@code replayed}, on every replica alike. The same id with another
 * digest of the arguments is refused with {@link Code#INVALID_ARGUMENT} and changes nothing. A re-send (version 4,
 * {@code request_seen_index}) whose id has no record, while a record of a request applied after the client first
 * sent it may have been pruned, is refused with {@link Code#FAILED_PRECONDITION} and changes nothing: applying it
 * could apply it twice.
 *
 * <p>A campaign with a lease is the one exception: it is idempotent by itself (one candidacy per name and lease)
 * and each of its sends is a new attempt whose id the candidacy must take (docs/api.md "Attempts"), so it is
 * applied again rather than answered from a record.
 */
final class RequestRule {
  private RequestRule() {
  }

  /** Applies {@code op} by {@code rule} at most once per request id; refusals are not recorded (they changed nothing). */
  static Result.Builder once(ApplyContext at, LogEntry op, Supplier<Result.Builder> rule) {
    String id = op.getRequestId();
    if (id.isEmpty() || op.getVersion() < EntryCodec.REQUEST_ID_VERSION
        || (op.hasCampaign() && op.getCampaign().getLeaseId() != 0)) {
      return rule.get();
    }
    String bad = Limits.checkRequestId(id);
    if (bad != null) {
      return error(Code.INVALID_ARGUMENT, bad);
    }
    RequestRecord first = at.txn().requests().get(id);
    if (first == null && op.getVersion() >= EntryCodec.ATTEMPT_ID_VERSION && op.getRequestSeenIndex() > 0
        && at.txn().requests().mayHavePrunedAbove(op.getRequestSeenIndex())) {
      return error(Code.FAILED_PRECONDITION, "request_id '" + id + "' has no record, but it may have been pruned:"
          + " this re-send was first sent after index " + op.getRequestSeenIndex() + " and the records kept start"
          + " above it (the last " + Limits.MAX_REQUEST_RECORDS + " requests are kept); whether it applied is"
          + " unknown — check, then send it under a new id if it still should apply");
    }
    if (first != null) {
      if (!first.getDigest().equals(op.getRequestDigest())) {
        return error(Code.INVALID_ARGUMENT, "request_id '" + id + "' was first used at index "
            + first.getAnswer().getIndex() + " with other arguments; use a new id for a new request");
      }
      return first.getAnswer().toBuilder().setReplayed(true);
    }
    Result.Builder answer = rule.get();
    if (answer.getCode() == Code.OK) {
      Result stored = Results.compact(answer.clone().setIndex(at.index()).build());
      at.txn().requests().put(id, RequestRecord.newBuilder().setDigest(op.getRequestDigest()).setAnswer(stored)
          .build(), Limits.MAX_REQUEST_RECORDS, Limits.MAX_REQUEST_BYTES);
    }
    return answer;
  }
}
