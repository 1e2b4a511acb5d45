package io.regent.client;

import java.security.SecureRandom;
import java.util.Base64;

/**
 * Request ids of mutating calls (docs/api.md "Request ids: exactly-once mutating calls"): one per logical request,
 * made before its first send and carried unchanged by every re-send, so that the state machine answers a repeat
 * from the first one's stored answer instead of applying it again. An id is 128 random bits in base64url without
 * padding (22 characters of {@code A-Z a-z 0-9 - _}, within the server's 1..64 characters of
 * {@code [A-Za-z0-9._:-]}): two requests of any number of clients share one only by chance of 2^-64 after 2^32
 * ids, and a request refused as "first used with other arguments" names a bug, never a collision.
 */
public final class RequestIds {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

  private RequestIds() {
  }

  /**
   * A new request id, 22 characters: for a caller that re-sends a logical call itself once the client's own re-sends
   * gave up (e.g. {@link Elections#campaignWithTtl(String, long, com.google.protobuf.ByteString, long, String)}).
   */
  public static String next() {
    byte[] b = new byte[16];
    RANDOM.nextBytes(b);
    return ENCODER.encodeToString(b);
  }
}
