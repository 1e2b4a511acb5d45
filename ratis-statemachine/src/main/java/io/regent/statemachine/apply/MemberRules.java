package io.regent.statemachine.apply;

import static io.regent.statemachine.apply.Results.error;

import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.MemberTiming;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.store.StateTxn;
import java.nio.charset.StandardCharsets;

/**
 * The member records of apply: each cluster member's API address and its minimum election timeout, which
 * the nodes publish through the log so that every replica reads the same (docs/architecture.md §8.1, §12).
 */
final class MemberRules {
  private final StateTxn txn;

  MemberRules(StateTxn txn) {
    this.txn = txn;
  }

  /** Records member {@code id}'s API address; {@link Code#INVALID_ARGUMENT} for an id or address out of bounds. */
  Result.Builder api(String id, String apiAddress) {
    int bytes = id.getBytes(StandardCharsets.UTF_8).length;
    if (bytes == 0 || bytes > StateTxn.MAX_MEMBER_ID_BYTES
        || apiAddress.getBytes(StandardCharsets.UTF_8).length > Limits.MAX_NAME_BYTES) {
      return error(Code.INVALID_ARGUMENT, "member id must be 1.." + StateTxn.MAX_MEMBER_ID_BYTES
          + " bytes and its API address at most " + Limits.MAX_NAME_BYTES);
    }
    txn.putMemberApi(id, apiAddress);
    return Result.newBuilder();
  }

  /** Records a member's minimum election timeout, ms; {@link Code#INVALID_ARGUMENT} for a bad id or timeout. */
  Result.Builder timing(MemberTiming timing) {
    int bytes = timing.getMemberId().getBytes(StandardCharsets.UTF_8).length;
    if (bytes == 0 || bytes > StateTxn.MAX_MEMBER_ID_BYTES || timing.getMinElectionTimeoutMs() <= 0) {
      return error(Code.INVALID_ARGUMENT, "member id must be 1.." + StateTxn.MAX_MEMBER_ID_BYTES
          + " bytes and its minimum election timeout above 0 ms");
    }
    txn.putMemberTiming(timing);
    return Result.newBuilder();
  }
}
