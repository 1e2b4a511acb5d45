package io.regent.server.api;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.LogEntry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The request id a mutating call's log entry carries (docs/api.md "Request ids"): the client's
 * {@code request_id} with a digest of the request's other fields, or — when the client sent none — one this node
 * makes up before it first proposes the entry, so that its own re-submissions of the entry apply once.
 *
 * @param id the request id, 1..{@link Limits#MAX_REQUEST_ID_CHARS} characters
 * @param digest the first 16 bytes of the SHA-256 of the request's type name and its bytes without the id (empty
 *     for an id this node made: nobody else can send it)
 * @param seenIndex for a client's re-send, the highest applied index it had seen before its first send
 *     ({@link SeenIndexHeader}); 0 otherwise
 */
public record RequestId(String id, ByteString digest, long seenIndex) {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int DIGEST_BYTES = 16;

  /**
   * The id of {@code request}, a message with a {@code request_id} string field.
   *
   * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT when the id is too long or has other characters
   */
  static RequestId of(Message request) {
    FieldDescriptor field = request.getDescriptorForType().findFieldByName("request_id");
    String id = (String) request.getField(field);
    if (id.isEmpty()) {
      return own();
    }
    String bad = Limits.checkRequestId(id);
    if (bad != null) {
      throw StatusCodes.invalid(bad);
    }
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(request.getDescriptorForType().getFullName().getBytes(StandardCharsets.UTF_8));
      sha.update(request.toBuilder().clearField(field).build().toByteArray());
      return new RequestId(id, ByteString.copyFrom(Arrays.copyOf(sha.digest(), DIGEST_BYTES)),
          SeenIndexHeader.current());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  /** An id this node makes up for an entry of its own or a request that came without one. */
  public static RequestId own() {
    byte[] r = new byte[12];
    RANDOM.nextBytes(r);
    return new RequestId("s-" + HexFormat.of().formatHex(r), ByteString.EMPTY, 0);
  }

  /** Sets this id, digest and seen index on {@code entry}; returns it. */
  public LogEntry.Builder stamp(LogEntry.Builder entry) {
    return entry.setRequestId(id).setRequestDigest(digest).setRequestSeenIndex(seenIndex);
  }
}
