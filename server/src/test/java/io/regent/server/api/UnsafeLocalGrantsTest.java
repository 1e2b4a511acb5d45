package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.client.RegentClient;
import io.regent.server.cluster.LocalCluster;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The negative-control mode really is unsafe: two leases both "hold" one name with one token. */
class UnsafeLocalGrantsTest {
  @TempDir
  Path dir;

  @Test
  void twoCampaignsOnOneNameAreBothGrantedWithTheSameToken() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(1, dir, c -> c.unsafeLocalGrants(true))) {
      cluster.awaitLeader();
      RegentClient client = cluster.client();
      long leaseA = client.grant(60_000);
      long leaseB = client.grant(60_000);
      LeaderKey a = client.campaign("jobs", leaseA, ByteString.copyFromUtf8("a"));
      LeaderKey b = client.campaign("jobs", leaseB, ByteString.copyFromUtf8("b"));
      assertThat(a.getLease()).isNotEqualTo(b.getLease());
      assertThat(b.getToken()).isEqualTo(a.getToken());
      assertThat(client.leader("jobs")).as("nothing was replicated").isEmpty();
    }
  }
}
