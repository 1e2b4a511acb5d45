package io.regent.server.single;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LeaderKey;
import io.regent.client.RegentClient;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The single-writer baseline: same API and token rules, one process, no Raft. */
class SingleWriterServerTest {
  @TempDir
  Path dir;

  @Test
  void tokensAreLogIndexesAndKeepGrowingAcrossRestarts() throws Exception {
    long before;
    try (SingleWriterServer s = SingleWriterServer.start("127.0.0.1", 0, dir);
         RegentClient c = RegentClient.connect("127.0.0.1:" + s.apiPort())) {
      LeaderKey a = c.campaign("jobs", c.grant(60_000), ByteString.copyFromUtf8("a"));
      c.resign(a);
      LeaderKey b = c.campaign("jobs", c.grant(60_000), ByteString.copyFromUtf8("b"));
      assertThat(b.getToken()).isGreaterThan(a.getToken());
      assertThat(c.status().getLeader()).isEqualTo(SingleWriterServer.NODE_ID);
      before = b.getToken();
    }
    try (SingleWriterServer s = SingleWriterServer.start("127.0.0.1", 0, dir);
         RegentClient c = RegentClient.connect("127.0.0.1:" + s.apiPort())) {
      assertThat(c.leader("jobs")).hasValueSatisfying(k -> assertThat(k.getToken()).isEqualTo(before));
      LeaderKey fresh = c.campaign("other", c.grant(60_000), ByteString.EMPTY);
      assertThat(fresh.getToken()).isGreaterThan(before);
    }
  }

  @Test
  void anUnrenewedLeaseExpiresAndItsKeepaliveAnswersNotFound() throws Exception {
    try (SingleWriterServer s = SingleWriterServer.start("127.0.0.1", 0, dir);
         RegentClient c = RegentClient.connect("127.0.0.1:" + s.apiPort())) {
      long lease = c.grant(2_000);
      assertThat(c.keepAlive(lease, 5_000)).isEqualTo(2_000);
      await().atMost(Duration.ofSeconds(10)).until(() -> c.leases().isEmpty());
      assertThatThrownBy(() -> c.keepAlive(lease, 5_000)).isInstanceOfSatisfying(StatusRuntimeException.class,
          e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
    }
  }
}
