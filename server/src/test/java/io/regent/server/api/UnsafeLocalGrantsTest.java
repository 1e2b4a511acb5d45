package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.client.RegentClient;
import io.regent.server.cluster.LocalCluster;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The negative-control mode really is unsafe: two leases both "hold" one name with one token. */
@Tag("cluster")
class UnsafeLocalGrantsTest {
  /** Pairs of campaigns tried before giving up on one that no other entry interleaved with. */
  private static final int ATTEMPTS = 20;

  @TempDir
  Path dir;

  @Test
  void twoCampaignsOnOneNameAreBothGrantedWithTheSameToken() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(1, dir, c -> c.unsafeLocalGrants(true))) {
      cluster.awaitLeader();
      RegentClient client = cluster.client();
      long leaseA = client.leases().grant(60_000);
      long leaseB = client.leases().grant(60_000);
      // The made-up token is the local applied index + 1, and the node applies entries of its own (lease
      // checkpoints every 500 ms, its published API address): equal tokens are owed only to a pair of
      // campaigns no such entry came between, which the applied index before and after shows.
      for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        String name = "jobs-" + attempt;
        long before = client.cluster().status().getAppliedIndex();
        LeaderKey a = client.elections().campaign(name, leaseA, ByteString.copyFromUtf8("a"));
        LeaderKey b = client.elections().campaign(name, leaseB, ByteString.copyFromUtf8("b"));
        long after = client.cluster().status().getAppliedIndex();
        assertThat(a.getLease()).isNotEqualTo(b.getLease());
        assertThat(client.elections().leader(name)).as("nothing was replicated").isEmpty();
        if (before == after) {
          assertThat(b.getToken()).isEqualTo(a.getToken()).isEqualTo(before + 1);
          return;
        }
      }
      fail("every one of %d pairs of campaigns had another entry applied between them", ATTEMPTS);
    }
  }
}
