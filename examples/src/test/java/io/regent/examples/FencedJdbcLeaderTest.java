package io.regent.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.client.RegentClient;
import io.regent.fencing.FencingMode;
import io.regent.fencing.JdbcFence;
import io.regent.fencing.StaleTokenException;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the example against a real one-node cluster and an H2 database, then plays the deposed leader. */
@Tag("cluster")
class FencedJdbcLeaderTest {
  @TempDir
  Path dir;

  /** A free port below Linux's ephemeral range (an outgoing connection cannot take it before the node binds). */
  private static int freePort() throws IOException {
    for (int tries = 0; ; tries++) {
      int port = 32_000 + ThreadLocalRandom.current().nextInt(700);
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress("127.0.0.1", port));
        return port;
      } catch (IOException e) {
        if (tries > 100) {
          throw e;
        }
      }
    }
  }

  @Test
  void theLeaderWritesFencedRowsAndAnOlderTokenIsRefused() throws Exception {
    int api = freePort();
    try (RegentServer node = RegentServer.start(ServerConfig.of("e1", Map.of("e1", "127.0.0.1:" + freePort()), api,
        dir.resolve("e1")));
         RegentClient client = RegentClient.connect("127.0.0.1:" + api);
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
