package io.regent.statemachine.apply;

import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.proto.Result;

/**
 * The shapes of the replies the rules of apply give; a refusal is a result, never an exception
 * (docs/architecture.md §9).
 */
final class Results {
  private Results() {
  }

  /** A refusal with {@code code} and a message saying why. */
  static Result.Builder error(Code code, String message) {
    return Result.newBuilder().setCode(code).setMessage(message);
  }

  /**
   * {@code r} as a request record keeps it (docs/api.md "Request ids"): without the names' waiting candidates, which
   * a repeat's caller does not read and which would make a record as large as a name's line.
   */
  static Result compact(Result r) {
    Result.Builder out = r.toBuilder();
    if (out.hasName()) {
      out.getNameBuilder().clearCandidates();
    }
    out.getAllNamesBuilderList().forEach(NameRecord.Builder::clearCandidates);
    return out.build();
  }

  /** A reply carrying the record of one name as the entry left it. */
  static Result.Builder ofName(NameRecord rec) {
    return Result.newBuilder().setName(rec);
  }
}
