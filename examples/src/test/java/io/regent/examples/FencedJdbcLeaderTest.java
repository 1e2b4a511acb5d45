package io.regent.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.client.RegentClient;
import io.regent.fencing.FencingMode;
import io.regent.fencing.JdbcFence;
import io.regent.fencing.StaleTokenException;
import io.regent.testing.LocalRegentCluster;
import io.regent.testing.RegentClusterExtension;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs the example against the module's 3-node cluster and an H2 database, then plays the deposed leader. */
@Tag("cluster")
@ExtendWith(RegentClusterExtension.class)
class FencedJdbcLeaderTest {
  @Test
  void theLeaderWritesFencedRowsAndAnOlderTokenIsRefused(LocalRegentCluster cluster) throws Exception {
    try (RegentClient client = RegentClient.connect(cluster.endpoints());
         Connection db = DriverManager.getConnection("jdbc:h2:mem:fenced-example;DB_CLOSE_DELAY=-1")) {
      assertThat(FencedJdbcLeader.lead(client, db, "worker-1", 3)).isEqualTo(3);
      long token;
      try (ResultSet rs = db.createStatement().executeQuery("SELECT COUNT(*), MAX(token) FROM job_log")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(3);
        token = rs.getLong(2);
      }
      assertThat(token).isPositive();
      // A second term gets a larger token; the first leader's token is then refused and writes nothing.
      assertThat(FencedJdbcLeader.lead(client, db, "worker-2", 1)).isEqualTo(1);
      long stale = token;
      assertThatThrownBy(() -> new JdbcFence("fences", FencingMode.MONOTONE).admit(db, "jobs", stale,
          c -> c.createStatement().executeUpdate("INSERT INTO job_log VALUES (" + stale + ", 'worker-1')")))
          .isInstanceOf(StaleTokenException.class);
      try (ResultSet rs = db.createStatement().executeQuery("SELECT COUNT(*) FROM job_log")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(4);
      }
    }
  }
}
