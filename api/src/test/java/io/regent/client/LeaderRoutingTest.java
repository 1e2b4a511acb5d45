package io.regent.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Metadata;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The routing decision of {@link LeaderRouting}: which endpoint a call for the leader starts at. */
class LeaderRoutingTest {
  static final List<String> ENDPOINTS = List.of("h:1", "h:2", "h:3");

  static LeaderRouting.Hint hint(String node, long term, String leader, String leaderApi) {
    return new LeaderRouting.Hint(node, term, leader, leaderApi);
  }

  @Test
  void withNoLeaderKnownCallsStartAtTheCurrentEndpoint() {
    LeaderRouting r = new LeaderRouting(ENDPOINTS);
    assertThat(r.start(1)).isEqualTo(1);
    r.observe(0, hint("n0", 3, null, null)); // an election: no leader in term 3
    assertThat(r.start(1)).isEqualTo(1);
    assertThat(r.leader()).isEqualTo(-1);
  }

  @Test
  void aLeaderNamedByItsPublishedAddressGetsTheNextCall() {
    LeaderRouting r = new LeaderRouting(ENDPOINTS);
    r.observe(0, hint("n0", 3, "n2", "h:3"));
    assertThat(r.start(0)).isEqualTo(2);
  }

  @Test
  void aLeaderReachedThroughAnotherAddressIsFoundByTheNodeThatAnswered() {
    // proxies: the published addresses are not the client's, but a reply through endpoint 1 came from n2
    LeaderRouting r = new LeaderRouting(ENDPOINTS);
    r.observe(0, hint("n0", 3, "n2", "10.0.0.3:7000"));
    assertThat(r.start(0)).isEqualTo(0);
    assertThat(r.unreachedLeader()).isEqualTo(hint(null, 3, "n2", "10.0.0.3:7000"));
    r.observe(1, hint("n2", 3, "n2", "10.0.0.3:7000"));
    assertThat(r.start(0)).isEqualTo(1);
    assertThat(r.unreachedLeader()).isNull();
  }

  @Test
  void aHintOfAnOlderTermDoesNotMoveTheLeader() {
    LeaderRouting r = new LeaderRouting(ENDPOINTS);
    assertThat(r.observe(0, hint("n0", 5, "n2", "h:3"))).as("a new term").isTrue();
    assertThat(r.observe(1, hint("n1", 4, "n1", "h:2"))).isFalse(); // n1 cut off, still leading term 4
    assertThat(r.start(0)).isEqualTo(2);
    assertThat(r.observe(1, hint("n1", 6, "n1", "h:2"))).isTrue();
    assertThat(r.start(0)).isEqualTo(1);
  }

  @Test
  void aFailedLeaderEndpointFallsBackUntilANewTerm() {
    LeaderRouting r = new LeaderRouting(ENDPOINTS);
    r.observe(0, hint("n0", 5, "n2", "h:3"));
    r.failed(0); // not the leader's: nothing changes
    assertThat(r.start(0)).isEqualTo(2);
    r.failed(2);
    assertThat(r.start(0)).as("the current endpoint").isEqualTo(0);
    assertThat(r.start(1)).isEqualTo(1);
    r.observe(0, hint("n0", 5, "n2", "h:3")); // followers still name it until the election
    assertThat(r.start(0)).isEqualTo(0);
    r.observe(1, hint("n1", 6, "n1", "h:2"));
    assertThat(r.start(0)).isEqualTo(1);
  }

  @Test
  void aFailedLeaderThatAnswersAgainIsRoutedToAgain() {
    LeaderRouting r = new LeaderRouting(ENDPOINTS);
    r.observe(2, hint("n2", 5, "n2", "h:3"));
    r.failed(2);
    assertThat(r.start(0)).isEqualTo(0);
    r.observe(2, hint("n2", 5, "n2", "h:3")); // e.g. a hedged keepalive's answer from the leader itself
    assertThat(r.start(0)).isEqualTo(2);
  }

  @Test
  void anAnswerWithoutAHintFromTheSuspectLeadersEndpointRoutesToItAgain() {
    // a keepalive stream's answer: no headers, so no hint; only the endpoint it came through
    LeaderRouting r = new LeaderRouting(ENDPOINTS);
    r.observe(2, hint("n2", 5, "n2", "h:3"));
    r.failed(2);
    r.answered(1); // a follower's endpoint answering says nothing of the leader
    assertThat(r.leader()).isEqualTo(-1);
    r.answered(2);
    assertThat(r.leader()).isEqualTo(2);
    assertThat(r.start(0)).isEqualTo(2);
  }

  @Test
  void anEndpointLearntLaterIsRoutedToWhenItIsTheLeaders() {
    LeaderRouting r = new LeaderRouting(List.of("h:1"));
    r.observe(0, hint("n0", 2, "n1", "h:2"));
    assertThat(r.start(0)).isEqualTo(0);
    r.endpointsChanged(List.of("h:1", "h:2"));
    assertThat(r.start(0)).isEqualTo(1);
    assertThat(r.endpointOf("n0")).isEqualTo(0);
    assertThat(r.endpointOf("n1")).isEqualTo(-1); // no reply through it yet
  }

  @Test
  void hintsAreReadFromMetadataAndAMalformedTermIsIgnored() {
    Metadata md = new Metadata();
    assertThat(LeaderRouting.Hint.of(md)).isNull();
    md.put(LeaderMetadata.NODE, "n0");
    md.put(LeaderMetadata.TERM, "7");
    md.put(LeaderMetadata.LEADER_ID, "n1");
    md.put(LeaderMetadata.LEADER, "h:2");
    assertThat(LeaderRouting.Hint.of(md)).isEqualTo(hint("n0", 7, "n1", "h:2"));
    Metadata bad = new Metadata();
    bad.put(LeaderMetadata.TERM, "x");
    assertThat(LeaderRouting.Hint.of(bad)).isNull();
  }
}
