package io.regent.cli.command.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * {@code --log-dir}: the process log, java.util.logging records included, goes to DIR/regent.log through the
 * rolling configuration.
 */
class LogFilesTest {
  @TempDir
  Path dir;

  @AfterEach
  void restoreLogging() throws Exception {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    new ContextInitializer(context).autoConfig();
    SLF4JBridgeHandler.uninstall();
    java.util.logging.LogManager.getLogManager().readConfiguration(); // JUL's own console handler again
  }

  @Test
  void logLinesGoToRegentLogInTheDirectoryItCreates() throws Exception {
    Path logs = dir.resolve("logs/n1");
    LogFiles.writeTo(logs);
    LoggerFactory.getLogger("io.regent.server.RegentServer").info("node n1 serving the API");
    LoggerFactory.getLogger("io.regent.server.RegentServer").debug("not at INFO");
    java.util.logging.Logger.getLogger("org.apache.ratis.thirdparty.io.netty").warning("a JUL warning");
    ((LoggerContext) LoggerFactory.getILoggerFactory()).stop(); // flushes and closes the file

    String log = Files.readString(logs.resolve("regent.log"));
    String thread = "[" + Thread.currentThread().getName() + "] ";
    assertThat(log).contains("INFO  " + thread + "io.regent.server.RegentServer - node n1 serving the API")
        .doesNotContain("not at INFO")
        .contains("WARN  " + thread + "o.apache.ratis.thirdparty.io.netty - a JUL warning");
  }

  @Test
  void aDirectoryThatCannotBeCreatedIsAnError() throws Exception {
    Path file = Files.writeString(dir.resolve("plain-file"), "x");
    assertThatThrownBy(() -> LogFiles.writeTo(file.resolve("logs")))
        .hasMessageStartingWith("cannot create the log directory " + file.resolve("logs"));
  }
}
