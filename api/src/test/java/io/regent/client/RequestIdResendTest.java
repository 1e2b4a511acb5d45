package io.regent.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client's half of exactly-once mutating calls (docs/api.md "Request ids"), against three {@link FakeNode}s:
 * a call whose answer was lost — UNAVAILABLE after the node took it, or a node that hangs — is re-sent to the next
 * endpoint with the request id of its first send, and the next logical call has an id of its own.
 */
class RequestIdResendTest {
  private static final String VALID_ID = "[A-Za-z0-9._:-]{1,64}";

  final List<FakeNode> nodes = new ArrayList<>();
  RegentClient client;

  @BeforeEach
  void start() throws Exception {
    for (int i = 0; i < 3; i++) {
      nodes.add(new FakeNode("n" + i));
    }
    for (FakeNode f : nodes) {
      f.hint = new LeaderRouting.Hint(f.id, 5, nodes.get(0).id, nodes.get(0).endpoint());
    }
    client = RegentClient.builder().endpoints(nodes.stream().map(FakeNode::endpoint).toList())
        .callTimeout(Duration.ofMillis(3_000)).attemptTimeout(Duration.ofMillis(300)).build();
    client.leases().timeToLive(1); // learns that n0 leads
  }

  @AfterEach
  void stop() {
    client.close();
    nodes.forEach(f -> f.server.shutdownNow());
  }

  @Test
  void aGrantAnsweredUnavailableAfterItAppliedIsResentWithTheSameIdAndTheNextGrantHasANewOne() {
    nodes.get(0).mutations = FakeNode.Mutations.UNAVAILABLE_AFTER_APPLY;
    client.leases().grant(10_000);
    client.leases().grant(10_000);
    assertThat(nodes.get(0).requestIds).hasSize(1);
    String first = nodes.get(0).requestIds.peek();
    assertThat(first).matches(VALID_ID);
    List<String> atN1 = List.copyOf(nodes.get(1).requestIds);
    assertThat(atN1).hasSize(2);
    assertThat(atN1.get(0)).as("the re-send of the first grant").isEqualTo(first);
    assertThat(atN1.get(1)).as("a new logical grant").matches(VALID_ID).isNotEqualTo(first);
  }

  @Test
  void aCampaignWithTtlAndAFreshTokenThatTimedOutAreResentWithTheirIds() {
    nodes.get(0).mutations = FakeNode.Mutations.HANG;
    client.elections().campaignWithTtl("jobs", 10_000, ByteString.copyFromUtf8("a"), 0);
    LeaderKey key = LeaderKey.newBuilder().setName("jobs").setLease(7).setToken(9).build();
    nodes.get(1).mutations = FakeNode.Mutations.HANG; // the freshToken starts at n1, hangs, moves on to n2
    assertThat(client.elections().freshToken(key)).isEqualTo(key);
    List<String> atN0 = List.copyOf(nodes.get(0).requestIds);
    List<String> atN1 = List.copyOf(nodes.get(1).requestIds);
    List<String> atN2 = List.copyOf(nodes.get(2).requestIds);
    assertThat(atN0).hasSize(1);
    assertThat(atN1).hasSize(2);
    assertThat(atN1.get(0)).as("campaign re-sent with its id").isEqualTo(atN0.get(0));
    assertThat(atN2).as("fresh token re-sent with its id").containsExactly(atN1.get(1));
    assertThat(atN1.get(1)).as("a new logical call").isNotEqualTo(atN0.get(0));
  }

  @Test
  void aReSendTellsTheNodeTheHighestAppliedIndexSeenBeforeTheFirstSend() {
    nodes.get(0).appliedIndex = 40;
    client.leases().timeToLive(1); // the client has now seen index 40
    nodes.get(0).appliedIndex = 55; // the first send's own reply shows more: not what the re-send names
    nodes.get(0).mutations = FakeNode.Mutations.UNAVAILABLE_AFTER_APPLY;
    client.leases().grant(10_000);
    assertThat(nodes.get(0).seenIndexes).contains("Grant=-").doesNotContain("Grant=40", "Grant=55");
    assertThat(nodes.get(1).seenIndexes).as("the re-send").containsExactly("Grant=40");
  }

  @Test
  void everyMutatingCallOfTheFacesCarriesAValidIdOfItsOwn() {
    LeaderKey key = LeaderKey.newBuilder().setName("jobs").setLease(7).setToken(9).build();
    client.leases().grant(10_000);
    client.elections().campaignWithTtl("jobs", 10_000, ByteString.EMPTY, 0);
    client.elections().tryCampaign("jobs", 7, ByteString.EMPTY);
    client.elections().campaign("jobs", 7, ByteString.EMPTY);
    client.elections().freshToken(key);
    List<String> ids = List.copyOf(nodes.get(0).requestIds);
    assertThat(ids).hasSize(5).allMatch(id -> id.matches(VALID_ID)).doesNotHaveDuplicates();
  }
}
