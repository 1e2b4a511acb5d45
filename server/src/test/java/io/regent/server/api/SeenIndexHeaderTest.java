package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.regent.api.v1.LeaseGrantRequest;
import io.regent.client.LeaderMetadata;
import io.regent.statemachine.proto.LogEntry;
import org.junit.jupiter.api.Test;

/**
 * A re-send's {@code regent-seen-index} reaches the entry its node proposes (docs/api.md "Request ids"): the header
 * is read into the call's context, and the request's id stamps it on the entry; a first send, or a value that is not
 * a positive number, stamps none.
 */
class SeenIndexHeaderTest {
  private static long stamped(String header) {
    Metadata md = new Metadata();
    if (header != null) {
      md.put(LeaderMetadata.SEEN_INDEX, header);
    }
    long[] seen = {-1};
    new SeenIndexHeader().interceptCall(null, md, (ServerCall<Object, Object> call, Metadata h) -> {
      LogEntry.Builder entry = RequestId.of(LeaseGrantRequest.newBuilder().setTtlMs(5_000).setRequestId("g-1")
          .build()).stamp(LogEntry.newBuilder());
      seen[0] = entry.getRequestSeenIndex();
      assertThat(entry.getRequestDigest()).isNotEqualTo(ByteString.EMPTY);
      return new ServerCall.Listener<>() { };
    });
    return seen[0];
  }

  @Test
  void aReSendsSeenIndexIsStampedOnItsEntry() {
    assertThat(stamped("4021")).isEqualTo(4021);
  }

  @Test
  void aFirstSendOrAValueThatIsNoPositiveNumberStampsNone() {
    assertThat(stamped(null)).isZero();
    assertThat(stamped("soon")).isZero();
    assertThat(stamped("-7")).isZero();
  }
}
