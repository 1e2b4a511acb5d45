package io.regent.cli.ledger;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LedgerAppendResponse;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Format;
import io.regent.client.LedgerClient;
import io.regent.fencing.IdempotencyKeys;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code regent ledger append KEY ENTRY --token N [--idempotency-key K]}: one fenced append. */
@Command(name = "append", mixinStandardHelpOptions = true,
    description = {"Appends ENTRY to KEY with fencing token N.",
        "Prints 'appended KEY position=P token=N' when admitted. A stale token exits 4 with one line on stderr "
            + "naming the token and H, the highest token the ledger has admitted for KEY; nothing is stored.",
        "With --idempotency-key K, the append is stored at most once however often it is retried with K (e.g. "
            + "after exit 5, when it may have been stored): a retry prints the first append's position and "
            + "replayed=true, stores nothing and is not refused for its token; K with another ENTRY exits 1 "
            + "(ALREADY_EXISTS, naming K). The ledger keeps K for 24 h (`ledger serve --idempotency-retention`)."})
public final class LedgerAppendCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  LedgerOptions ledger;

  @Parameters(index = "0", paramLabel = "KEY", description = "ledger key")
  String key;

  @Parameters(index = "1", paramLabel = "ENTRY", description = "the entry (UTF-8 text)")
  String entry;

  @Option(names = "--token", paramLabel = "N", required = true,
      description = "fencing token, e.g. the token printed by `regent elect` or $REGENT_FENCING_TOKEN")
  long token;

  @Option(names = "--idempotency-key", paramLabel = "K",
      description = "the append's name, the same on every retry (e.g. a UUID): 1 to "
          + IdempotencyKeys.MAX_KEY_LENGTH + " characters")
  String idempotencyKey;

  @Override
  public Integer call() {
    if (idempotencyKey != null) {
      try {
        IdempotencyKeys.checkKey(idempotencyKey);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "--idempotency-key: " + e.getMessage());
      }
    }
    try (LedgerClient c = ledger.connect()) {
      if (idempotencyKey == null) {
        long position = c.append(key, token, ByteString.copyFromUtf8(entry));
        spec.commandLine().getOut().println(Format.appended(key, position, token, ledger.json()));
      } else {
        LedgerAppendResponse r = c.append(key, token, ByteString.copyFromUtf8(entry), idempotencyKey);
        spec.commandLine().getOut().println(Format.appended(key, r.getPosition(), token, r.getReplayed(),
            ledger.json()));
      }
      return ExitCodes.OK;
    }
  }
}
