package io.regent.cli.command;

import io.grpc.ChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.regent.api.v1.MaintenanceGrpc;
import io.regent.api.v1.SnapshotChunk;
import io.regent.api.v1.SnapshotRequest;
import io.regent.cli.output.ExitCodes;
import io.regent.cli.output.Json;
import io.regent.cli.settings.DurationConverter;
import io.regent.server.storage.OfflineSnapshots;
import io.regent.server.storage.SnapshotFile;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Iterator;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code regent snapshot save|restore}: backups of the replicated state and new clusters seeded from them. */
@Command(name = "snapshot", mixinStandardHelpOptions = true,
    description = {"Saves a consistent copy of a running cluster's state, or seeds a new node from one.",
        "A snapshot file holds an LMDB copy of the leases and names at one applied index N, with a SHA-256 "
            + "checksum. A cluster restored from it issues fencing tokens above N, i.e. above every token in it."},
    subcommands = {SnapshotCommand.Save.class, SnapshotCommand.Restore.class})
public final class SnapshotCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing command: save or restore");
  }

  /** {@code snapshot save FILE}. */
  @Command(name = "save", mixinStandardHelpOptions = true,
      description = {"Writes a consistent copy of the cluster's state to FILE (replaced atomically).",
          "The first reachable endpoint confirms its leadership view (so the copy holds every write "
              + "acknowledged before the command started), copies its LMDB state and streams it with a SHA-256.",
          "With --data-dir, copies the state of a STOPPED node's data directory instead (disaster recovery: "
              + "entries in its Raft log beyond its LMDB state are not included).",
          "Prints: snapshot FILE index=N bytes=B sha256=HEX"})
  static final class Save implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ClientOptions client;

    @Parameters(index = "0", paramLabel = "FILE", description = "where to write the snapshot")
    Path file;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "5m",
        converter = DurationConverter.class, description = "give up after this long (default: ${DEFAULT-VALUE})")
    java.time.Duration timeout;

    @Option(names = "--data-dir", paramLabel = "DIR",
        description = "read a stopped node's data directory instead of asking a running cluster")
    Path dataDir;

    @Override
    public Integer call() throws Exception {
      if (dataDir != null) {
        SnapshotFile.Header h = OfflineSnapshots.save(dataDir.toAbsolutePath(), file.toAbsolutePath());
        spec.commandLine().getOut().println("snapshot " + file + " index=" + h.appliedIndex() + " bytes="
            + h.lmdbBytes() + " sha256=" + h.sha256());
        return ExitCodes.OK;
      }
      StatusRuntimeException last = null;
      for (String endpoint : client.endpointList()) {
        try {
          SnapshotFile.Header h = save(endpoint, client.credentials(), file.toAbsolutePath(), timeout.toMillis());
          String line = client.json()
              ? Json.obj().put("file", file.toString()).put("index", h.appliedIndex()).put("bytes", h.lmdbBytes())
                  .put("sha256", h.sha256()).put("endpoint", endpoint).toString()
              : "snapshot " + file + " index=" + h.appliedIndex() + " bytes=" + h.lmdbBytes() + " sha256="
                  + h.sha256();
          spec.commandLine().getOut().println(line);
          return ExitCodes.OK;
        } catch (StatusRuntimeException e) {
          if (e.getStatus().getCode() != Status.Code.UNAVAILABLE) {
            throw e;
          }
          last = e;
        }
      }
      throw last;
    }

    /** Streams one node's snapshot into {@code target}; checks its length and SHA-256 before writing. */
    static SnapshotFile.Header save(String endpoint, ChannelCredentials credentials, Path target, long timeoutMs)
        throws IOException {
      int colon = endpoint.lastIndexOf(':');
      ManagedChannel channel = NettyChannelBuilder.forAddress(endpoint.substring(0, colon),
          Integer.parseInt(endpoint.substring(colon + 1)), credentials).maxInboundMessageSize(16 << 20).build();
      Path dir = target.getParent() == null ? Path.of(".") : target.getParent();
      Path tmp = Files.createTempFile(dir, ".regent-snapshot", ".mdb");
      try {
        Iterator<SnapshotChunk> it = MaintenanceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS).snapshot(SnapshotRequest.getDefaultInstance());
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        long index = -1;
        long total = -1;
        long received = 0;
        byte[] digest = null;
        try (OutputStream out = Files.newOutputStream(tmp)) {
          while (it.hasNext()) {
            SnapshotChunk c = it.next();
            if (index < 0) {
              index = c.getAppliedIndex();
              total = c.getTotalBytes();
            }
            if (!c.getData().isEmpty()) {
              c.getData().writeTo(out);
              sha.update(c.getData().asReadOnlyByteBuffer());
              received += c.getData().size();
            }
            if (!c.getSha256().isEmpty()) {
              digest = c.getSha256().toByteArray();
            }
          }
        }
        if (digest == null || received != total) {
          throw new IOException("snapshot stream from " + endpoint + " ended early: " + received + " of " + total
              + " bytes");
        }
        if (!MessageDigest.isEqual(digest, sha.digest())) {
          throw new IOException("snapshot stream from " + endpoint + " is corrupt: SHA-256 mismatch");
        }
        SnapshotFile.write(target, index, tmp);
        return SnapshotFile.check(target, null);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      } finally {
        Files.deleteIfExists(tmp);
        channel.shutdownNow();
      }
    }
  }

  /** {@code snapshot restore FILE --data-dir DIR}. */
  @Command(name = "restore", mixinStandardHelpOptions = true,
      description = {"Seeds a node's data directory from a snapshot file, for a new cluster (like etcd's "
          + "snapshot restore).",
          "Checks the file (magic, length, SHA-256), writes DIR/lmdb/data.mdb and a Raft storage whose log "
              + "starts after the snapshot's index N, so new fencing tokens are above every token in it.",
          "Restore the SAME file into the data directory of EVERY node of the new cluster, then start them "
              + "with `regent server --data-dir DIR ...`. DIR must hold no Regent data.",
          "Prints: restored FILE index=N into DIR"})
  static final class Restore implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "a file written by `regent snapshot save`")
    Path file;

    @Option(names = "--data-dir", paramLabel = "DIR", required = true,
        description = "the new node's data directory (created when absent)")
    Path dataDir;

    @Override
    public Integer call() throws Exception {
      SnapshotFile.Header h = OfflineSnapshots.restore(file, dataDir.toAbsolutePath());
      spec.commandLine().getOut().println("restored " + file + " index=" + h.appliedIndex() + " into " + dataDir);
      return ExitCodes.OK;
    }
  }
}
