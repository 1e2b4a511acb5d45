package io.regent.server.ratis;

import io.regent.server.config.ServerConfig;
import io.regent.server.storage.DataDir;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/** Translates a {@link ServerConfig} into Ratis properties and the Raft group. */
public final class RaftSetup {
  /** Fixed group id of cell 0 ({@link DataDir#RAFT_GROUP_UUID}): the storage subdirectory is named after it. */
  public static final RaftGroupId GROUP_ID = groupId(0);

  /** Bytes of one batch entry's operations, about ({@code Cell}'s batcher; docs/architecture.md §2.6). */
  public static final int CELL_BATCH_BYTES = 1 << 20;

  /** Upper bound of one membership change or leadership transfer, ms. */
  public static final long ADMIN_TIMEOUT_MS = 60_000;

  private RaftSetup() {
  }

  /** The fixed group id of cell {@code cell} ({@link DataDir#groupUuid}; docs/architecture.md §14). */
  public static RaftGroupId groupId(int cell) {
    return RaftGroupId.valueOf(DataDir.groupUuid(cell));
  }

  /** Cell 0's Raft group of every configured peer. */
  public static RaftGroup group(ServerConfig config) {
    return group(config, 0);
  }

  /** Cell {@code cell}'s Raft group of every configured peer: every cell has the same voters. */
  public static RaftGroup group(ServerConfig config, int cell) {
    List<RaftPeer> peers = config.peers().entrySet().stream()
        .map(e -> RaftPeer.newBuilder().setId(e.getKey()).setAddress(e.getValue()).build())
        .toList();
    return RaftGroup.valueOf(groupId(cell), peers);
  }

  /**
   * The appender's pause after consecutive failed or INCONSISTENCY replies to a follower ({@code
   * raft.server.log.appender.retry.policy}: pairs of pause and count): 1 ms for the first 10, 50 ms for the next
   * 12 000, then 1 s. Ratis's default is {@code 1ms,10, 1s,20, 5s,1000} (docs/ratis.md §17).
   */
  static final String APPENDER_RETRY_POLICY = "1ms,10, 50ms,12000, 1s,1000000";

  /**
   * Ratis server and client properties for this node.
   *
   * @throws ServerConfig.InvalidSettingException when the {@code raft.*} JVM properties give timing that breaks
   *     the leadership lease ({@link RaftTiming#check}, {@link RaftTiming#checkFirstElection})
   */
  public static RaftProperties properties(ServerConfig config) {
    RaftProperties p = new RaftProperties();
    // gRPC, whose leader tells followers of a commit at once (docs/ratis.md §9)
    RaftConfigKeys.Rpc.setType(p, new RegentRpcType());
    RaftServerConfigKeys.setStorageDir(p, List.of(new DataDir(config.dataDir()).raft().toFile()));
    int port = Integer.parseInt(config.peers().get(config.nodeId()).replaceAll(".*:", ""));
    GrpcConfigKeys.Server.setPort(p, port);
    RaftServerConfigKeys.Rpc.setTimeoutMin(p, ms(config.electionTimeoutMinMs()));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, ms(config.electionTimeoutMaxMs()));
    // Ratis's default read path is not linearizable (docs/ratis.md §1). Regent's API confirms leadership with a
    // Confirm entry of its own, but any Ratis read-only request must also be linearizable.
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    // The leadership lease needs every election to begin with a pre-vote, where followers that heard from their
    // leader within the minimum election timeout refuse (docs/architecture.md §8.1). It is
    // Ratis's default; set here so that nobody turns it off unknowingly.
    RaftServerConfigKeys.LeaderElection.setPreVote(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, config.snapshotThreshold());
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.max(1, Math.min(1024, config.snapshotThreshold())));
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(config.logSegmentBytes()));
    // Ratis appends a metadata entry (the commit index) after commits by default: one more log entry, one
    // more append round per write at low load (docs/ratis.md §6: a log index per operation of 2.0). Raft does not need it.
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);
    // Ratis's leader pauses a follower's appender 5 s after each failed or INCONSISTENCY reply once 30 came in a
    // row; a follower restarted or reconnected after that many then waits 5 s per round, and a divergent tail
    // backs off one entry per round (docs/ratis.md §17). Short pauses throughout instead: 20 rounds a second for
    // a dead follower during its first 10 minutes, then one a second.
    RaftServerConfigKeys.Log.Appender.setRetryPolicy(p, APPENDER_RETRY_POLICY);
    if (config.cells() > 1) {
      // Ratis gives each division a direct write buffer of raft.server.log.write.buffer.size (8 MiB by default),
      // at least the appender's byte limit (4 MiB) + 8: 64 cells took the node's 512 MiB of direct memory and a
      // node of `cluster up --cells 64` failed to start (OutOfMemoryError: direct buffer memory). Several cells
      // get twice the largest entry each: a batch of about 1 MiB, or one operation of the largest message.
      long entry = Math.max(CELL_BATCH_BYTES, config.limits().maxMessageBytes());
      RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, SizeInBytes.valueOf(2 * entry));
      RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(2 * entry + 8));
    }
    RaftClientConfigKeys.Rpc.setRequestTimeout(p, ms(Math.min(3000, config.requestTimeoutMs())));
    // A new Ratis client first sends a dummy watch request to open its ordered stream, and holds every request
    // behind it until it is answered, for up to the watch timeout (10 s). A client built while this node still
    // followed a leader that had just frozen sent it there, and held the proposals made through it for 10 s:
    // FrozenLeaderWritesTest's write after the election took 5.5-8.8 s in 3 of 13 runs of the class, in none of 12
    // without it. Without it the first proposal opens the stream, and a replaced client's proposals are resent
    // (docs/ratis.md §10).
    RaftClientConfigKeys.Async.Experimental.setSendDummyRequest(p, false);
    overrides(p, System.getProperties());
    RaftTiming.of(p).check(config); // what the overrides left is what the lease rests on
    RaftTiming.checkFirstElection(p, config);
    return p;
  }

  /**
   * Sets every {@code raft.*} key of {@code jvm} on {@code p}, over the values above: Ratis tuning without a
   * release, e.g. {@code JAVA_TOOL_OPTIONS=-Draft.server.log.appender.wait-time.min=1ms} for the A/B runs of
   * docs/performance.md. Ratis parses and checks each value when it reads its key.
   */
  static void overrides(RaftProperties p, java.util.Properties jvm) {
    for (String key : jvm.stringPropertyNames()) {
      if (key.startsWith("raft.")) {
        p.set(key, jvm.getProperty(key));
      }
    }
  }

  /**
   * Properties of the Ratis clients that change the configuration or move leadership: a request may wait for
   * a new member to catch up (Ratis stages new peers before committing the configuration), so it may take up to
   * {@link #ADMIN_TIMEOUT_MS} instead of the proposals' few seconds.
   */
  public static RaftProperties adminProperties(RaftProperties props) {
    RaftProperties p = new RaftProperties(props);
    RaftClientConfigKeys.Rpc.setRequestTimeout(p, ms(ADMIN_TIMEOUT_MS));
    return p;
  }

  private static TimeDuration ms(long millis) {
    return TimeDuration.valueOf(millis, TimeUnit.MILLISECONDS);
  }
}
