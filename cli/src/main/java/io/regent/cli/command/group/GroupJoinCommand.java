package io.regent.cli.command.group;

import io.regent.cli.command.ClientOptions;
import io.regent.cli.holder.Signals;
import io.regent.cli.holder.SuspendOptions;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.settings.DurationConverter;
import io.regent.client.LeaseKeeper;
import io.regent.client.PartitionOwnership;
import io.regent.client.RegentClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code regent group join GROUP MEMBER --partitions P [--exec -- CMD]}: be a member until interrupted. */
@Command(name = "join", mixinStandardHelpOptions = true,
    description = {"Joins GROUP as MEMBER on a kept-alive lease and follows its assignment until interrupted.",
        "Prints 'assigned P token=T' and 'revoked P' as partitions come and go (a revoked partition is released "
            + "right after the line). SIGINT/SIGTERM: leaves the group (its partitions move on at once), exit 0. "
            + "When the lease is in doubt (2/3 TTL without an acknowledged keepalive, e.g. a leader failover): "
            + "every partition is revoked and 'suspended GROUP: reason' goes to stderr, but the member stays in the "
            + "group and goes on renewing; a renewal in time prints 'resumed GROUP' and assigns its partitions "
            + "again with their tokens. When the lease is known to be gone, or a TTL and --grace have passed "
            + "without a renewal (or at once with --no-suspend): 'lost GROUP: reason' on stderr, exit 1.",
        "--exec -- CMD ARGS...: runs CMD with $REGENT_PARTITIONS_FILE, a file of 'PARTITION TOKEN' lines (the "
            + "partitions it may act on now), rewritten on every change; then, before a revoked partition is "
            + "released, CMD is restarted (the default: SIGTERM, SIGKILL after 2 s, started again; it reads the "
            + "file when it starts), or sent --reload-signal SIG, or told nothing (--reload-signal none: it polls "
            + "the file). A CMD given a signal must handle or ignore it from its first instant (a change can come "
            + "while it starts); it starts with SIGHUP at its default even under nohup. "
            + "Also $REGENT_GROUP, $REGENT_MEMBER, $REGENT_LEASE_ID. "
            + "When CMD exits by itself, join leaves and exits with its status (one line on stderr when a signal "
            + "ended it); on loss CMD gets SIGTERM."})
public final class GroupJoinCommand implements Callable<Integer> {
  /** The environment variable that names the --exec child's partitions file. */
  public static final String PARTITIONS_FILE = "REGENT_PARTITIONS_FILE";

  @Spec
  CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Mixin
  SuspendOptions suspension;

  @Parameters(index = "0", paramLabel = "GROUP", description = "group name")
  String group;

  @Parameters(index = "1", paramLabel = "MEMBER", description = "member id, unique in the group (1..128 bytes)")
  String member;

  @Parameters(index = "2..*", paramLabel = "CMD", description = "with --exec, after --: the command to run")
  List<String> command = List.of();

  @Option(names = "--partitions", paramLabel = "P", defaultValue = "0",
      description = "partition count, 1..65536, to create the group (default: join an existing group)")
  int partitions;

  @Option(names = "--ttl", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
      description = "lease TTL, e.g. 3s (default: ${DEFAULT-VALUE})")
  Duration ttl;

  @Option(names = "--exec", description = "run the command given after -- (see above)")
  boolean exec;

  @Option(names = "--reload-signal", paramLabel = "SIG",
      description = "with --exec: on a change send CMD this signal (HUP, USR1, USR2, INT, QUIT, ALRM, TERM, WINCH) "
          + "instead of restarting it, or none (CMD polls its file) (default: restart)")
  String reloadSignal;

  @Override
  public Integer call() throws Exception {
    if (exec == command.isEmpty()) {
      throw new ParameterException(spec.commandLine(), exec ? "--exec needs a command after --"
          : "unexpected argument '" + command.get(0) + "' (a command goes after --exec --)");
    }
    ReloadSignal reload = ReloadSignal.RESTART;
    if (reloadSignal != null) {
      if (!exec) {
        throw new ParameterException(spec.commandLine(), "--reload-signal needs --exec");
      }
      try {
        reload = ReloadSignal.parse(reloadSignal);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage());
      }
    }
    if (suspension.conflict() != null) {
      throw new ParameterException(spec.commandLine(), suspension.conflict());
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    CompletableFuture<Integer> done = new CompletableFuture<>();
    Signals.onTermination(() -> done.complete(ExitCodes.OK));
    Path file = exec ? Files.createTempFile("regent-partitions-", ".txt") : null;
    PartitionsChild child = exec ? new PartitionsChild(command, file, reload, err, done) : null;
    try (RegentClient c = client.connect();
         PartitionOwnership o = PartitionOwnership.join(c, group, member, partitions, ttl.toMillis(),
             new Printer(group, out, err, done, child, file),
             // the Printer reports suspension; the options only switch it on (and set --grace)
             suspension.apply(LeaseKeeper.options(), reason -> { }, () -> { }))) {
      if (child != null) {
        child.start(Map.of("REGENT_GROUP", group, "REGENT_MEMBER", member, "REGENT_LEASE_ID",
            String.valueOf(o.leaseId())));
      }
      return done.get();
    } finally {
      if (child != null) {
        child.stop();
      }
      if (file != null) {
        Files.deleteIfExists(file);
      }
    }
  }

  /** Prints every change and keeps the child's file current. Listener calls come from one thread. */
  private static final class Printer implements PartitionOwnership.Listener {
    private final String group;
    private final PrintWriter out;
    private final PrintWriter err;
    private final CompletableFuture<Integer> done;
    private final PartitionsChild child;
    private final Path file;
    private final Map<Integer, Long> owned = new java.util.TreeMap<>();

    Printer(String group, PrintWriter out, PrintWriter err, CompletableFuture<Integer> done, PartitionsChild child,
        Path file) {
      this.group = group;
      this.out = out;
      this.err = err;
      this.done = done;
      this.child = child;
      this.file = file;
    }

    @Override
    public void onAssigned(int partition, long token) {
      owned.put(partition, token);
      changed("assigned " + partition + " token=" + token);
    }

    @Override
    public void onRevoked(int partition) {
      owned.remove(partition);
      changed("revoked " + partition);
    }

    @Override
    public void onSuspended(String reason) {
      err.println("suspended " + group + ": " + reason);
      err.flush();
    }

    @Override
    public void onResumed() {
      err.println("resumed " + group);
      err.flush();
    }

    @Override
    public void onStepDown(String reason) {
      err.println("lost " + group + ": " + reason);
      err.flush();
      done.complete(ExitCodes.ERROR);
    }

    private void changed(String line) {
      out.println(line);
      out.flush();
      if (child != null) {
        child.rewrite(() -> write(file, owned));
      }
    }
  }

  /** Rewrites the partitions file atomically (write, then rename), so the child never reads half a file. */
  public static void write(Path file, Map<Integer, Long> owned) {
    try {
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      String text = owned.entrySet().stream().map(e -> e.getKey() + " " + e.getValue() + "\n")
          .collect(Collectors.joining());
      Files.writeString(tmp, text, StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
