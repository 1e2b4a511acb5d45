package io.regent.server.ratis;

import io.regent.server.config.ServerConfig;
import io.regent.server.config.ServerConfig.InvalidSettingException;
import io.regent.statemachine.proto.MemberTiming;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;

/**
 * The Raft timing a node runs with, read back from its final Ratis properties (after the {@code raft.*} JVM
 * overrides): what the leadership lease rests on (docs/architecture.md §8.1), so the lease takes it from here,
 * never from the flags.
 *
 * @param minElectionTimeoutMs Ratis's {@code raft.server.rpc.timeout.min}, ms: how long this node, as a follower,
 *     refuses a pre-vote after it heard from its leader
 * @param maxElectionTimeoutMs Ratis's {@code raft.server.rpc.timeout.max}, ms
 * @param preVote Ratis's {@code raft.server.leaderelection.pre-vote}: whether this node's elections begin with one
 */
public record RaftTiming(long minElectionTimeoutMs, long maxElectionTimeoutMs, boolean preVote) {
  /** The timing {@code props} set. */
  public static RaftTiming of(RaftProperties props) {
    return new RaftTiming(RaftServerConfigKeys.Rpc.timeoutMin(props).toLong(TimeUnit.MILLISECONDS),
        RaftServerConfigKeys.Rpc.timeoutMax(props).toLong(TimeUnit.MILLISECONDS),
        RaftServerConfigKeys.LeaderElection.preVote(props));
  }

  /**
   * Refuses timing that breaks the rules of {@code config} (docs/architecture.md §8.1): the election timeouts come
   * from {@code --election-timeout} alone, since the minimum TTL and every voter's published timing derive from
   * them (a {@code raft.*} override that disagrees is refused, not obeyed), and the leadership lease needs the
   * pre-vote.
   *
   * @throws InvalidSettingException with one line naming the setting
   */
  public void check(ServerConfig config) {
    if (minElectionTimeoutMs != config.electionTimeoutMinMs() || maxElectionTimeoutMs != config.electionTimeoutMaxMs()) {
      throw new InvalidSettingException("the raft.server.rpc.timeout.min/max JVM properties give election timeouts "
          + minElectionTimeoutMs + ".." + maxElectionTimeoutMs + " ms, --election-timeout " + config.electionTimeoutMinMs()
          + ".." + config.electionTimeoutMaxMs() + " ms: set them with --election-timeout only", "election-timeout");
    }
    if (!preVote && !config.confirm().strict()) {
      throw new InvalidSettingException("--confirm lease needs Ratis's pre-vote, which "
          + "raft.server.leaderelection.pre-vote=false turns off: drop that property or use --confirm strict",
          "confirm");
    }
  }

  /**
   * Refuses, under {@code --confirm lease}, a {@code raft.server.rpc.first-election.timeout.min} below the minimum
   * election timeout: after a restart a node becomes a candidate once that first timeout passes without a leader,
   * and the leadership lease needs every candidate to wait at least the minimum election timeout after it last heard
   * from the leader or started (docs/architecture.md §8.1, "the candidate's own wait"). Ratis falls back to
   * {@code raft.server.rpc.timeout.min} when the key is unset, which passes.
   *
   * @param props the final Ratis properties, after the {@code raft.*} JVM overrides
   * @throws InvalidSettingException with one line naming the property
   */
  public static void checkFirstElection(RaftProperties props, ServerConfig config) {
    long first = RaftServerConfigKeys.Rpc.firstElectionTimeoutMin(props).toLong(TimeUnit.MILLISECONDS);
    long min = RaftServerConfigKeys.Rpc.timeoutMin(props).toLong(TimeUnit.MILLISECONDS);
    if (first < min && !config.confirm().strict()) {
      throw new InvalidSettingException("--confirm lease needs raft.server.rpc.first-election.timeout.min of at least "
          + "the minimum election timeout " + min + " ms, not " + first + " ms: drop that property or use "
          + "--confirm strict", "confirm");
    }
  }

  /**
   * Refuses to start a node of {@code config} whose timing is below {@code recorded}, the timing its own stored
   * state says it last published: until it publishes again, a leader would bound its lease by the larger value
   * (docs/architecture.md §8.1). A node on {@code --confirm strict} may lower it; the rolling change of
   * docs/operations.md puts every node on it first.
   *
   * @param recorded this node's record in its stored state, or {@code null} when it has none
   * @throws InvalidSettingException with one line naming the setting
   */
  public void checkAgainst(MemberTiming recorded, ServerConfig config) {
    if (recorded == null || config.confirm().strict()) {
      return;
    }
    if (minElectionTimeoutMs < recorded.getMinElectionTimeoutMs()) {
      throw new InvalidSettingException("minimum election timeout " + minElectionTimeoutMs + " ms is below the "
          + recorded.getMinElectionTimeoutMs() + " ms this node published; lower it with every node on "
          + "--confirm strict first (docs/operations.md, changing the election timeout)", "election-timeout");
    }
  }

  /**
   * The entry that publishes this timing for member {@code memberId}, with the highest entry version it applies
   * ({@link VoterFormats}; {@code EntryCodec.MAX_VERSION} but in the rolling-upgrade test).
   */
  public MemberTiming entry(String memberId, int maxEntryVersion) {
    return MemberTiming.newBuilder().setMemberId(memberId).setMinElectionTimeoutMs(minElectionTimeoutMs)
        .setPreVote(preVote).setMaxEntryVersion(maxEntryVersion).build();
  }
}
