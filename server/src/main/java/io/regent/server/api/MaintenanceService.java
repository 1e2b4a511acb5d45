package io.regent.server.api;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.MaintenanceGrpc;
import io.regent.api.v1.SnapshotChunk;
import io.regent.api.v1.SnapshotRequest;
import io.regent.server.confirm.Confirmer;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.RegentStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code regent.v1.Maintenance} service: {@code Snapshot} streams a consistent LMDB copy of this node's
 * state (the tables of docs/architecture.md §2.1: leases, names, applied index) for {@code regent snapshot save}.
 *
 * <p>The copy is rebuilt from one read transaction into a fresh environment, then compacted: it holds
 * exactly the state at one applied index. It is taken after a confirmation round begun after the call
 * arrived and after this replica applied that round's entry, so it contains every acknowledged write.
 */
final class MaintenanceService extends MaintenanceGrpc.MaintenanceImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceService.class);
  static final int CHUNK_BYTES = 64 * 1024;

  private final Confirmer confirmer;
  private final ReplicaView replica;
  private final ExecutorService executor;
  private final boolean severalCells;

  /**
   * @param replica cell 0's
   * @param severalCells whether the cluster has several cells: a snapshot of cell 0 alone would be a backup that
   *     silently lacks the others, so Snapshot is refused (docs/architecture.md §14)
   */
  MaintenanceService(Confirmer confirmer, ReplicaView replica, ExecutorService executor, boolean severalCells) {
    this.confirmer = confirmer;
    this.replica = replica;
    this.executor = executor;
    this.severalCells = severalCells;
  }

  /** FAILED_PRECONDITION on a cluster of several cells; else the stream of chunks above. */
  @Override
  public void snapshot(SnapshotRequest req, StreamObserver<SnapshotChunk> obs) {
    if (severalCells) {
      obs.onError(io.grpc.Status.FAILED_PRECONDITION.withDescription("snapshots of a cluster of several cells are "
          + "not supported in this release: one of cell 0 would lack the other cells (docs/architecture.md §14)")
          .asRuntimeException());
      return;
    }
    confirmer.confirm(List.of(), List.of())
        .thenCompose(r -> replica.hub().awaitApplied(r.getIndex()))
        .thenAcceptAsync(applied -> stream((ServerCallStreamObserver<SnapshotChunk>) obs), executor)
        .exceptionally(e -> {
          obs.onError(StatusCodes.toStatus(e));
          return null;
        });
  }

  private void stream(ServerCallStreamObserver<SnapshotChunk> obs) {
    Path tmp = null;
    try {
      tmp = Files.createTempDirectory("regent-snapshot");
      Path file = tmp.resolve("snapshot.mdb");
      long index = copy(replica, tmp.resolve("env"), file);
      long size = Files.size(file);
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      obs.onNext(SnapshotChunk.newBuilder().setAppliedIndex(index).setTotalBytes(size).build());
      try (InputStream in = Files.newInputStream(file)) {
        byte[] buf = new byte[CHUNK_BYTES];
        for (int n = in.read(buf); n > 0; n = in.read(buf)) {
          if (obs.isCancelled()) {
            return;
          }
          sha.update(buf, 0, n);
          obs.onNext(SnapshotChunk.newBuilder().setData(ByteString.copyFrom(buf, 0, n)).build());
        }
      }
      obs.onNext(SnapshotChunk.newBuilder().setSha256(ByteString.copyFrom(sha.digest())).build());
      obs.onCompleted();
      LOG.info("snapshot of applied index {} sent: {} bytes", index, size);
    } catch (IOException | NoSuchAlgorithmException | RuntimeException e) {
      LOG.warn("snapshot failed", e);
      obs.onError(Status.INTERNAL.withDescription("snapshot failed: " + e.getMessage()).asRuntimeException());
    } finally {
      delete(tmp);
    }
  }

  /**
   * Rebuilds {@code replica}'s state, read in one transaction, in a new environment in {@code envDir} and
   * writes its compacted copy to {@code target}.
   *
   * @return the applied index of the copy
   */
  static long copy(ReplicaView replica, Path envDir, Path target) {
    try (RegentStore out = RegentStore.open(envDir)) {
      long index = replica.read(txn -> {
        List<LeaseRecord> leases = txn.allLeases();
        List<NameRecord> names = txn.allNames();
        long applied = txn.appliedIndex();
        out.write(w -> {
          leases.forEach(w::putLease);
          names.forEach(w::putName);
          w.setAppliedIndex(applied);
          return null;
        });
        return applied;
      });
      out.copyTo(target);
      return index;
    }
  }

  private static void delete(Path root) {
    if (root == null) {
      return;
    }
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      LOG.warn("cannot delete {}", root, e);
    }
  }
}
