package io.regent.server.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.ratis.client.retry.ClientRetryEvent;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.Timestamp;
import org.junit.jupiter.api.Test;

/** A proposal is retried while it is young, never once it has been pending for the proposal timeout. */
class ProposalRetriesTest {
  private final RaftClientRequest write = RaftClientRequest.newBuilder().setClientId(ClientId.randomId())
      .setServerId(RaftPeerId.valueOf("n1")).setGroupId(RaftGroupId.randomId()).setCallId(1)
      .setMessage(Message.EMPTY).setType(RaftClientRequest.writeRequestType()).build();

  @Test
  void retriesAfterAFailureWithinTheTimeout() {
    RetryPolicy.Action a = ProposalRetries.within(3_000).handleAttemptFailure(event(200, 40));
    assertThat(a.shouldRetry()).isTrue();
    assertThat(a.getSleepTime().toLong(java.util.concurrent.TimeUnit.MILLISECONDS))
        .isEqualTo(ProposalRetries.SLEEP_MS);
  }

  @Test
  void neverRetriesOnceTheRequestIsAsOldAsTheTimeout() {
    // the policy before: 50 attempts whatever their age (each up to the 3 s Ratis request timeout)
    assertThat(ProposalRetries.within(3_000).handleAttemptFailure(event(3_100, 2)).shouldRetry()).isFalse();
  }

  @Test
  void theDummyWatchOfANewClientSleepsBetweenAttemptsAndEnds() {
    // before: no policy for WATCH, so Ratis's default retried it for ever with no sleep (a spinning core)
    RaftClientRequest watch = RaftClientRequest.newBuilder().setClientId(ClientId.randomId())
        .setServerId(RaftPeerId.valueOf("n1")).setGroupId(RaftGroupId.randomId()).setCallId(2)
        .setMessage(Message.EMPTY).setType(RaftClientRequest.watchRequestType()).build();
    RetryPolicy.Action young = ProposalRetries.within(3_000).handleAttemptFailure(event(watch, 200, 40));
    assertThat(young.getSleepTime().toLong(java.util.concurrent.TimeUnit.MILLISECONDS))
        .isEqualTo(ProposalRetries.SLEEP_MS);
    assertThat(ProposalRetries.within(3_000).handleAttemptFailure(event(watch, 3_100, 2)).shouldRetry()).isFalse();
  }

  private ClientRetryEvent event(long ageMs, int attempts) {
    return event(write, ageMs, attempts);
  }

  private static ClientRetryEvent event(RaftClientRequest request, long ageMs, int attempts) {
    return new ClientRetryEvent(attempts, request, attempts, new IOException("timed out"),
        Timestamp.currentTime().addTimeMs(-ageMs));
  }
}
