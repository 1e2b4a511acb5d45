package io.regent.cli.ledger;

import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Json;
import io.regent.client.LedgerClient;
import io.regent.fencing.StaleTokenException;

/**
 * One fenced append of a writer loop and how the loop reports it: admitted (at a position), rejected (the
 * ledger had admitted a higher token, {@code highest}) or failed (no answer from the ledger).
 */
record LedgerAttempt(String result, String entry, long token, long position, long highest, String error) {
  /** Appends {@code entry} to {@code key} with {@code token}; never throws for a refusal or a failed call. */
  static LedgerAttempt append(LedgerClient c, String key, String entry, long token) {
    try {
      return new LedgerAttempt("admitted", entry, token, c.append(key, token, ByteString.copyFromUtf8(entry)), 0, null);
    } catch (StaleTokenException e) {
      return new LedgerAttempt("rejected", entry, token, 0, e.highest(), null);
    } catch (StatusRuntimeException e) {
      return new LedgerAttempt("failed", entry, token, 0, 0, ExitCodes.message(e));
    }
  }

  /** {@code RESULT WHAT token=T} and {@code position=P}, {@code highest=H} or {@code : REASON}. */
  String text(String what) {
    String head = result + " " + what + " token=" + token;
    return switch (result) {
      case "admitted" -> head + " position=" + position;
      case "rejected" -> head + " highest=" + highest;
      default -> head + ": " + error;
    };
  }

  /** The same as one JSON object: result, entry, token, and position, highest or error. */
  Json json() {
    Json j = Json.obj().put("result", result).put("entry", entry).put("token", token);
    return switch (result) {
      case "admitted" -> j.put("position", position);
      case "rejected" -> j.put("highest", highest);
      default -> j.put("error", error);
    };
  }
}
