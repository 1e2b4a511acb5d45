package io.regent.cli.ledger;

import io.regent.cli.holder.Identity;
import io.regent.cli.settings.DurationConverter;
import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Options shared by the ledger's writer loops ({@code append-loop}, {@code partition-loop}): the ledger, the pause
 * between rounds and the writer id.
 */
final class LedgerLoopOptions {
  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Mixin
  LedgerOptions ledger;

  @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "200ms", converter = DurationConverter.class,
      description = "pause between rounds (default: ${DEFAULT-VALUE})")
  Duration interval;

  @Option(names = "--id", paramLabel = "ID", description = "writer id in each entry (default: host:pid)")
  String id;

  /**
   * The pause between rounds; a usage error below 1 ms (the converter already refuses negative ones): the loops
   * wait in whole milliseconds, so a shorter pause would be none (append-loop would spin, partition-loop wait for
   * ever).
   */
  Duration interval() {
    if (interval.toMillis() < 1) {
      throw new ParameterException(mixee.commandLine(), "--interval must be at least 1ms");
    }
    return interval;
  }

  /** The writer id: {@code --id}, else this process's {@code host:pid}. */
  String id() {
    return id != null ? id : Identity.self();
  }
}
