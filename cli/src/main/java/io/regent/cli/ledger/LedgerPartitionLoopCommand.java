package io.regent.cli.ledger;

import io.regent.cli.command.group.GroupJoinCommand;
import io.regent.client.LedgerClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code regent ledger partition-loop PREFIX}: the writer of {@code regent demo ownership}, which {@code group
 * join --exec} runs. Every INTERVAL (or at once on SIGHUP) it appends to {@code PREFIX/P} for each partition P
 * of the partitions file, with that partition's token. Like {@code append-loop} it never asks whether it still
 * owns a partition and never stops on a rejection: only the ledger's fence, keyed by partition, keeps a
 * deposed owner's writes out (docs/ownership.md, failure modes).
 */
@Command(name = "partition-loop", hidden = true, mixinStandardHelpOptions = true,
    description = {"Appends 'ID #n' to PREFIX/P for every partition P in $REGENT_PARTITIONS_FILE (set by `regent "
        + "group join --exec`: 'PARTITION TOKEN' lines), round n every INTERVAL, each with its partition's token.",
        "One line per attempt: 'admitted PREFIX/P ID #n token=T position=X', 'rejected PREFIX/P ID #n token=T "
            + "highest=H' or 'failed PREFIX/P ID #n token=T: REASON'. SIGHUP starts the next round at once. Never "
            + "exits on a rejection; stop it with a signal.",
        "Example: regent group join orders w1 --partitions 16 --reload-signal none --exec -- regent ledger "
            + "partition-loop orders --id w1"})
public final class LedgerPartitionLoopCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  LedgerLoopOptions loop;

  @Parameters(index = "0", paramLabel = "PREFIX", description = "ledger keys are PREFIX/PARTITION")
  String prefix;

  private final Object wake = new Object();

  @Override
  public Integer call() throws Exception {
    Duration interval = loop.interval();
    String file = System.getenv(GroupJoinCommand.PARTITIONS_FILE);
    if (file == null || file.isBlank()) {
      throw new ParameterException(spec.commandLine(), "no partitions file: run under `regent group join --exec`, "
          + "which sets $" + GroupJoinCommand.PARTITIONS_FILE);
    }
    String id = loop.id();
    try {
      // a change of the partitions file: write with the new assignment now (the JVM's default would exit)
      sun.misc.Signal.handle(new sun.misc.Signal("HUP"), sig -> {
        synchronized (wake) {
          wake.notifyAll();
        }
      });
    } catch (IllegalArgumentException | UnsupportedOperationException e) {
      // no SIGHUP here: the next round comes after the interval anyway
    }
    PrintWriter out = spec.commandLine().getOut();
    try (LedgerClient c = loop.ledger.connect()) {
      for (long n = 1; ; n++) {
        for (Map.Entry<Integer, Long> p : read(Path.of(file)).entrySet()) {
          String key = prefix + "/" + p.getKey();
          LedgerAttempt a = LedgerAttempt.append(c, key, id + " #" + n, p.getValue());
          out.println(loop.ledger.json() ? a.json().put("key", key).toString() : a.text(key + " " + a.entry()));
        }
        out.flush();
        synchronized (wake) {
          wake.wait(interval.toMillis());
        }
      }
    }
  }

  /** The partitions file: partition to token; empty while it does not exist. Lines that do not parse are skipped. */
  static Map<Integer, Long> read(Path file) throws IOException {
    Map<Integer, Long> owned = new TreeMap<>();
    try {
      for (String line : Files.readAllLines(file)) {
        String[] f = line.trim().split("\\s+");
        if (f.length == 2 && f[0].matches("\\d+") && f[1].matches("\\d+")) {
          owned.put(Integer.parseInt(f[0]), Long.parseLong(f[1]));
        }
      }
    } catch (NoSuchFileException e) {
      // not written yet: no partition
    }
    return owned;
  }
}
