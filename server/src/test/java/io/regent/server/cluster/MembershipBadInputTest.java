package io.regent.server.cluster;

import io.regent.server.membership.Membership;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.MemberListResponse;
import io.regent.client.RegentClient;
import java.time.Duration;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Membership calls with bad arguments, or refused in the cluster's state: a clear status, and nothing changes. */
@Tag("cluster")
class MembershipBadInputTest {
  @RegisterExtension
  final ClusterFixture clusters = ClusterFixture.perTest();
  LocalCluster cluster;

  @Test
  void refusedCallsChangeNothing() throws Exception {
    cluster = clusters.start(1);
    cluster.awaitLeader();
    RegentClient c = cluster.client();
    // The node publishes its API address with an entry of its own once it leads: wait for it, so that
    // "before" is a settled membership and any later difference is the refused calls' doing.
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(() -> !c.cluster().memberList().getMembers(0).getApiAddress().isEmpty());
    MemberListResponse before = c.cluster().memberList();
    String raftOfN0 = before.getMembers(0).getAddress();

    assertRefused(() -> c.cluster().memberAdd("bad id", "127.0.0.1:7004", "127.0.0.1:7104"),
        Status.Code.INVALID_ARGUMENT,
        "member id 'bad id' is invalid");
    assertRefused(() -> c.cluster().memberAdd("n4", "no-port", "127.0.0.1:7104"), Status.Code.INVALID_ARGUMENT,
        "Raft address 'no-port' is invalid");
    assertRefused(() -> c.cluster().memberAdd("n4", "127.0.0.1:7004", "127.0.0.1:70000"), Status.Code.INVALID_ARGUMENT,
        "API address '127.0.0.1:70000' is invalid");
    assertRefused(() -> c.cluster().memberAdd("n0", "127.0.0.1:7004", "127.0.0.1:7104"), Status.Code.ALREADY_EXISTS,
        "member n0 already exists");
    assertRefused(() -> c.cluster().memberAdd("n4", raftOfN0, "127.0.0.1:7104"), Status.Code.ALREADY_EXISTS,
        "Raft address " + raftOfN0 + " is already member n0's");
    assertRefused(() -> c.cluster().memberRemove("n0"), Status.Code.FAILED_PRECONDITION, "member n0 is the last voter");
    assertRefused(() -> c.cluster().memberRemove("n9"), Status.Code.NOT_FOUND, "no member n9");
    assertRefused(() -> c.cluster().memberPromote("n0"), Status.Code.FAILED_PRECONDITION,
        "member n0 is already a voter");
    assertRefused(() -> c.cluster().transferLeadership("n9"), Status.Code.NOT_FOUND, "no member n9");

    assertThat(c.cluster().memberList()).isEqualTo(before);
  }

  private static void assertRefused(ThrowingCallable call, Status.Code code, String message) {
    assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(code);
      assertThat(e.getStatus().getDescription()).startsWith(message);
    });
  }
}
