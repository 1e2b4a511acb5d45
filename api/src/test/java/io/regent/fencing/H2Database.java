package io.regent.fencing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh in-memory H2 database per test (why H2: {@link JdbcFenceTest}), created with {@code ddl} and shut down
 * after the test. Register with {@code @RegisterExtension}.
 */
final class H2Database implements BeforeEachCallback, AfterEachCallback {
  private final String ddl;
  private String url;
  private Connection connection;

  /** @param ddl the statement that creates the test's table */
  H2Database(String ddl) {
    this.ddl = ddl;
  }

  /** The database's JDBC URL, for a test that opens more connections (row locks wait up to 30 s). */
  String url() {
    return url;
  }

  /** The test's connection, open for the whole test. */
  Connection connection() {
    return connection;
  }

  @Override
  public void beforeEach(ExtensionContext context) throws SQLException {
    url = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=30000";
    connection = DriverManager.getConnection(url);
    try (Statement st = connection.createStatement()) {
      st.execute(ddl);
    }
  }

  @Override
  public void afterEach(ExtensionContext context) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute("SHUTDOWN");
    }
    connection.close();
  }
}
