package io.regent.examples;

import com.google.protobuf.ByteString;
import io.regent.client.LeaderLatch;
import io.regent.client.RegentClient;
import io.regent.fencing.FencingMode;
import io.regent.fencing.JdbcFence;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;

/**
 * A leader that writes to a SQL table through a fence: it campaigns for {@code jobs}, and every row it writes
 * goes through {@link JdbcFence}, in the same transaction as the check that its fencing token is not older
 * than any admitted before. A deposed leader that wakes up late gets a {@code StaleTokenException} and writes
 * nothing. Run: {@code FencedJdbcLeader [ENDPOINTS [JDBC-URL [ROWS]]]}.
 */
public final class FencedJdbcLeader {
  private FencedJdbcLeader() {
  }

  public static void main(String[] args) throws Exception {
    String endpoints = args.length > 0 ? args[0] : "127.0.0.1:7101";
    String url = args.length > 1 ? args[1] : "jdbc:h2:mem:example;DB_CLOSE_DELAY=-1";
    int rows = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    try (RegentClient client = RegentClient.connect(endpoints); Connection db = DriverManager.getConnection(url)) {
      System.out.println("wrote " + lead(client, db, "worker-1", rows) + " rows");
    }
  }

  /** Leads {@code jobs} and writes {@code rows} fenced rows (fewer if leadership is lost); how many it wrote. */
  static int lead(RegentClient client, Connection db, String me, int rows) throws Exception {
    JdbcFence fence = new JdbcFence("fences", FencingMode.MONOTONE);
    fence.createTable(db);
    db.createStatement().execute("CREATE TABLE IF NOT EXISTS job_log (token BIGINT, worker VARCHAR(64))");
    try (LeaderLatch latch = new LeaderLatch(client, "jobs", ByteString.copyFromUtf8(me), 10_000, false,
        new LeaderLatch.Listener() {
          public void isLeader(long token) {
            System.out.println(me + " leads with token " + token);
          }

          public void notLeader(String reason) {
            System.out.println(me + " stopped leading: " + reason);
          }
        })) {
      latch.start();
      if (!latch.await(Duration.ofSeconds(30))) {
        return 0;
      }
      int written = 0;
      while (written < rows && latch.hasLeadership()) {
        long token = latch.token().orElseThrow();
        written += fence.admit(db, "jobs", token, c -> {
          try (PreparedStatement insert = c.prepareStatement("INSERT INTO job_log VALUES (?, ?)")) {
            insert.setLong(1, token);
            insert.setString(2, me);
            return insert.executeUpdate();
          }
        });
      }
      return written;
    }
  }
}
