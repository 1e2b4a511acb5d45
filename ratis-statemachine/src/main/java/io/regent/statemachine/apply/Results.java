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

  /** A reply carrying the record of one name as the entry left it. */
  static Result.Builder ofName(NameRecord rec) {
    return Result.newBuilder().setName(rec);
  }
}
