package io.regent.cli.command;

import io.regent.cli.settings.DurationConverter;
import java.time.Duration;
import picocli.CommandLine.Option;

/** How long {@code elect} and {@code lock} wait to be granted the name: {@code --timeout} (default: as long as it takes). */
final class WaitOptions {
  @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "give up when not granted within DURATION: exit 3, nothing held or queued (default: wait "
          + "until granted)")
  Duration timeout;

  /** The wait, or null for no limit; a usage error for a zero or negative one is the caller's check. */
  Duration timeout() {
    return timeout;
  }
}
