package io.regent.jepsen.cluster;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.Member;
import io.regent.api.v1.StatusRequest;
import io.regent.api.v1.StatusResponse;
import io.regent.server.storage.DataDir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where a node's log is: its own commit and applied index (a serializable Status, answered by the node itself),
 * the replication progress its peers' leader reports for it ({@code Member.replication}, docs/operations.md
 * "Follower lag"), and the log index of its newest snapshot on disk. One plain channel per node, kept for the run
 * (it reconnects after a restart): not the shipped client, which would follow the leader's hints to another node.
 */
public final class Progress implements AutoCloseable {
  private static final Duration CALL = Duration.ofSeconds(2);
  private static final Pattern SNAPSHOT = Pattern.compile("snapshot\\.\\d+_(\\d+)");

  private final Cluster cluster;
  private final Path dataRoot;
  private final List<ManagedChannel> channels;

  /** Progress of {@code cluster}'s nodes, whose data directories are {@code dataRoot/<id>}. */
  public Progress(Cluster cluster, Path dataRoot) {
    this.cluster = cluster;
    this.dataRoot = dataRoot;
    this.channels = cluster.nodes().stream()
        .map(n -> (ManagedChannel) ManagedChannelBuilder.forTarget(n.endpoint()).usePlaintext().build()).toList();
  }

  /** The node's own Status (serializable: it answers from its own state), or empty if it does not answer. */
  public Optional<StatusResponse> local(Node n) {
    try {
      ManagedChannel ch = channels.get(cluster.nodes().indexOf(n));
      // gRPC waits out a growing backoff (1 s, x1.6 each time, up to 2 min) between reconnects to a node that was
      // down, failing calls meanwhile: a node down 49 s (its JVM took 29 s to start at a load average of 30) was
      // next tried after the run's 60 s wait for its answer, and reported as never answering
      if (ch.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
        ch.resetConnectBackoff();
      }
      return Optional.of(ClusterGrpc.newBlockingStub(ch).withDeadlineAfter(CALL.toMillis(), TimeUnit.MILLISECONDS)
          .status(StatusRequest.newBuilder().setSerializable(true).build()));
    } catch (StatusRuntimeException e) {
      return Optional.empty();
    }
  }

  /** The highest commit index among the nodes other than {@code except} that answer; -1 when none does. */
  public long commitIndexOfOthers(Node except) {
    long max = -1;
    for (Node n : cluster.nodes()) {
      if (n != except) {
        max = Math.max(max, local(n).map(StatusResponse::getCommitIndex).orElse(-1L));
      }
    }
    return max;
  }

  /** What the Raft leader (one of the other nodes) reports of {@code n}'s replication, if one answers. */
  public Optional<String> leaderView(Node n) {
    for (Node other : cluster.nodes()) {
      Optional<StatusResponse> s = other == n ? Optional.empty() : local(other);
      if (s.isPresent() && s.get().getRole().equals("LEADER")) {
        for (Member m : s.get().getMembersList()) {
          if (m.getId().equals(n.id()) && m.hasReplication()) {
            return Optional.of(other.id() + " (commit " + s.get().getCommitIndex() + ") sees " + n.id()
                + " at match index " + m.getReplication().getMatchIndex() + ", " + m.getReplication().getLagEntries()
                + " entries behind for " + m.getReplication().getLagSeconds() + " s");
          }
        }
      }
    }
    return Optional.empty();
  }

  /** The log index of the newest complete snapshot (one with its {@code .md5}) in {@code n}'s data; -1 if none. */
  public long snapshotIndex(Node n) {
    Path sm = new DataDir(dataRoot.resolve(n.id())).snapshots();
    if (!Files.isDirectory(sm)) {
      return -1;
    }
    try (Stream<Path> files = Files.list(sm)) {
      List<String> names = files.map(f -> f.getFileName().toString()).toList();
      return names.stream().map(SNAPSHOT::matcher).filter(Matcher::matches)
          .filter(m -> names.contains(m.group() + ".md5")).mapToLong(m -> Long.parseLong(m.group(1))).max()
          .orElse(-1);
    } catch (IOException e) {
      return -1; // listed while a snapshot was being renamed into place: the next poll sees it
    }
  }

  @Override
  public void close() {
    channels.forEach(ManagedChannel::shutdownNow);
  }
}
