package io.regent.cli.ledger;

import io.regent.cli.holder.ExecChild;
import io.regent.cli.holder.TokenFile;
import io.regent.client.LedgerClient;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code regent ledger append-loop KEY}: the writer of the zombie-leader scenario, which {@code elect --exec}
 * runs as leader. Like a zombie, it never checks whether it still leads and never stops on a rejection: only
 * the ledger's fence stands between it and the data.
 */
@Command(name = "append-loop", hidden = true, mixinStandardHelpOptions = true,
    description = {"Appends 'ID #n' to KEY every INTERVAL, forever, with the newest fencing token it knows.",
        "Token: --token N, else the newest in $REGENT_FENCING_TOKEN_FILE, else $REGENT_FENCING_TOKEN (both set "
            + "by `regent elect --exec`). One line per attempt: 'admitted ID #n token=T position=P', 'rejected ID "
            + "#n token=T highest=H' or 'failed ID #n token=T: REASON'. Never exits on a rejection; stop it with "
            + "a signal.",
        "Example: regent elect jobs node-a --exec -- regent ledger append-loop jobs --id node-a"})
public final class LedgerAppendLoopCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  LedgerLoopOptions loop;

  @Parameters(index = "0", paramLabel = "KEY", description = "ledger key")
  String key;

  @Option(names = "--token", paramLabel = "N", description = "a fixed fencing token instead of the environment's")
  Long token;

  private long lastToken;

  @Override
  public Integer call() throws InterruptedException {
    Duration interval = loop.interval();
    lastToken = initialToken();
    String id = loop.id();
    PrintWriter out = spec.commandLine().getOut();
    try (LedgerClient c = loop.ledger.connect()) {
      for (long n = 1; ; n++) {
        out.println(attempt(c, id + " #" + n, currentToken()));
        out.flush();
        Thread.sleep(interval.toMillis());
      }
    }
  }

  /** One append of {@code entry}; the line that reports it. */
  private String attempt(LedgerClient c, String entry, long t) {
    LedgerAttempt a = LedgerAttempt.append(c, key, entry, t);
    return loop.ledger.json() ? a.json().toString() : a.text(a.entry());
  }

  private long initialToken() {
    if (token != null) {
      return token;
    }
    String file = System.getenv(TokenFile.ENV);
    OptionalLong fromFile = file == null ? OptionalLong.empty() : TokenFile.read(Path.of(file));
    if (fromFile.isPresent()) {
      return fromFile.getAsLong();
    }
    try {
      return Long.parseLong(System.getenv().getOrDefault(ExecChild.TOKEN, "").trim());
    } catch (NumberFormatException e) {
      throw new ParameterException(spec.commandLine(), "no fencing token: give --token N or run under `regent "
          + "elect --exec`, which sets $" + ExecChild.TOKEN + " and $" + TokenFile.ENV);
    }
  }

  /** The newest token: the file's when it can be read, else the last one known. */
  private long currentToken() {
    String file = System.getenv(TokenFile.ENV);
    if (token == null && file != null) {
      TokenFile.read(Path.of(file)).ifPresent(t -> lastToken = t);
    }
    return lastToken;
  }
}
