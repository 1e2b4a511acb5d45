package io.regent.statemachine.apply;

import static io.regent.statemachine.apply.Results.error;

import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.LogEntryOrBuilder;
import io.regent.statemachine.proto.RequestRecord;
import io.regent.statemachine.proto.Result;
import java.util.function.Supplier;

/**
 * Attempts apply once (docs/api.md "Attempts"), from entry version 4 on ({@link EntryCodec#ATTEMPT_ID_VERSION}).
 * A blocking campaign's entry (a Campaign with a lease, or a CampaignAll) opens its attempt: the first copy applies
 * and its answer — refusals included — is stored as the request record of the attempt; every later copy is answered
 * from it and changes nothing. A cancelled call's cleanup (a Withdraw or Resign naming the attempt) closes the
 * attempt: when no copy of its campaign has applied yet, it stores a record in its place, so a copy that commits
 * after the cleanup (still in flight on another Ratis client, or re-sent by Ratis) changes nothing either.
 *
 * <p>Why: applying every copy, as version 3 does, let a copy that committed after its own cleanup bring the
 * candidacy back with nobody waiting on it, and a name then went to a lease whose caller had given it up.
 */
final class AttemptRule {
  /**
   * Longest attempt id a version-4 entry may name: its record's id is the attempt behind a one-character prefix, and
   * request ids are at most {@link Limits#MAX_REQUEST_ID_CHARS} characters.
   */
  static final int MAX_ATTEMPT_CHARS = Limits.MAX_REQUEST_ID_CHARS - 1;

  private AttemptRule() {
  }

  /** The attempt {@code op} names (a Campaign, CampaignAll, Withdraw or Resign), or "" when none. */
  static String attempt(LogEntryOrBuilder op) {
    return switch (op.getCommandCase()) {
      case CAMPAIGN -> op.getCampaign().getAttempt();
      case CAMPAIGN_ALL -> op.getCampaignAll().getAttempt();
      case WITHDRAW -> op.getWithdraw().getAttempt();
      case RESIGN -> op.getResign().getAttempt();
      default -> "";
    };
  }

  /**
   * The request id under which attempt {@code attempt} is recorded: '@' and the attempt. No client's request id can
   * take it ('@' is not among their characters, {@link Limits#checkRequestId}).
   */
  static String recordId(String attempt) {
    return "@" + attempt;
  }

  /** Applies {@code op} by {@code rule}, once per attempt for a campaign, closing the attempt for a cleanup. */
  static Result.Builder once(ApplyContext at, LogEntry op, Supplier<Result.Builder> rule) {
    String attempt = attempt(op);
    if (op.getVersion() < EntryCodec.ATTEMPT_ID_VERSION || attempt.isEmpty()) {
      return rule.get();
    }
    if (attempt.length() > MAX_ATTEMPT_CHARS) {
      return error(Code.INVALID_ARGUMENT, "attempt is " + attempt.length() + " characters, above the limit of "
          + MAX_ATTEMPT_CHARS);
    }
    RequestRecord first = at.txn().requests().get(recordId(attempt));
    boolean opens = op.hasCampaignAll() || (op.hasCampaign() && op.getCampaign().getLeaseId() != 0);
    if (opens) {
      if (first != null) {
        return first.getAnswer().toBuilder().setReplayed(true);
      }
      Result.Builder answer = rule.get();
      store(at, attempt, answer.clone().setIndex(at.index()).build());
      return answer;
    }
    Result.Builder answer = rule.get();
    if (first == null) {
      store(at, attempt, error(Code.FAILED_PRECONDITION, "attempt " + attempt
          + " was cleaned up at index " + at.index() + " before its campaign applied").setIndex(at.index()).build());
    }
    return answer;
  }

  private static void store(ApplyContext at, String attempt, Result answer) {
    at.txn().requests().put(recordId(attempt), RequestRecord.newBuilder().setAnswer(Results.compact(answer)).build(),
        Limits.MAX_REQUEST_RECORDS, Limits.MAX_REQUEST_BYTES);
  }
}
