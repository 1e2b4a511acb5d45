package io.regent.cli.command.server;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import ch.qos.logback.core.status.Status;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Sends this process's log to rotated files instead of stdout ({@code regent server --log-dir}), with the
 * policy of the class-path resource {@value #CONFIG}: {@code DIR/regent.log}, rolled daily and at 100 MB,
 * 14 days and 2 GB kept. java.util.logging records are sent there too.
 */
final class LogFiles {
  /** The logback configuration used for log files. */
  static final String CONFIG = "regent-log-files.xml";

  private LogFiles() {
  }

  /**
   * Creates {@code dir} when needed and reconfigures logback to write into it. Call before the node starts:
   * lines logged earlier went to stdout.
   *
   * @throws UncheckedIOException when {@code dir} cannot be created
   * @throws IllegalStateException when logback cannot open the log file there
   */
  static void writeTo(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the log directory " + dir + ": " + e.getMessage(), e);
    }
    if (!Files.isWritable(dir)) {
      throw new IllegalStateException("the log directory " + dir + " is not writable");
    }
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    context.getStatusManager().clear(); // only this configuration's errors count below
    context.putProperty("regent.log.dir", dir.toString());
    URL config = LogFiles.class.getClassLoader().getResource(CONFIG);
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    try {
      configurator.doConfigure(config);
    } catch (JoranException e) {
      throw new IllegalStateException("cannot log to " + dir + ": " + e.getMessage(), e);
    }
    for (Status s : context.getStatusManager().getCopyOfStatusList()) {
      if (s.getLevel() == Status.ERROR) {
        throw new IllegalStateException("cannot log to " + dir + ": " + s.getMessage());
      }
    }
    // java.util.logging (Ratis's shaded gRPC and Netty) would otherwise print to stderr, outside the file
    SLF4JBridgeHandler.removeHandlersForRootLogger();
    SLF4JBridgeHandler.install();
  }
}
