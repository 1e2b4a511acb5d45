package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.LeaderKey;
import io.regent.client.RegentClient;
import io.regent.server.cluster.LocalCluster;
import io.regent.server.cluster.SharedCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Election.CampaignAll on the module's shared cluster (docs/testing.md, "Clusters"): all names or none, one token,
 * blocking while any is held.
 */
@ExtendWith(SharedCluster.class)
@Tag("cluster")
class CampaignAllServiceTest {
  @Test
  void waitsForEveryNameAndTakesThemWithOneToken(LocalCluster cluster) throws Exception {
    String x = SharedCluster.name("x");
    String y = SharedCluster.name("y");
    String p = SharedCluster.name("p");
    RegentClient c = cluster.client();
    LeaderKey heldY = c.elections().campaign(y, c.leases().grant(600_000), ByteString.copyFromUtf8("other"));
    long lease = c.leases().grant(600_000);
    CompletableFuture<List<LeaderKey>> all = CompletableFuture.supplyAsync(
        () -> c.elections().campaignAll(List.of(x, y), lease, ByteString.copyFromUtf8("both")));
    await().atMost(Duration.ofSeconds(10)).until(() -> c.leases().timeToLive(lease).getNamesList().size() == 2);
    assertThat(c.elections().leader(x)).as("x is not taken alone").isEmpty();
    assertThat(all).isNotDone();
    c.elections().resign(heldY);
    List<LeaderKey> keys = all.get();
    assertThat(keys).extracting(LeaderKey::getName).containsExactly(x, y);
    assertThat(keys).extracting(LeaderKey::getToken).containsOnly(keys.get(0).getToken());
    assertThat(keys.get(0).getToken()).isGreaterThan(heldY.getToken());
    assertThat(c.elections().leader(x))
        .hasValueSatisfying(k -> assertThat(k.getToken()).isEqualTo(keys.get(0).getToken()));
    assertThatThrownBy(() -> c.elections().campaignAll(List.of(p, p), lease, ByteString.EMPTY))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
  }
}
