package io.regent.server.ratis;

import io.regent.server.confirm.Confirmer;
import io.regent.server.confirm.LeadershipLease;
import io.regent.server.replication.Proposer;
import io.grpc.Status;
import io.regent.api.v1.Member;
import io.regent.api.v1.MemberListResponse;
import io.regent.server.membership.Membership;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.MemberApi;
import io.regent.statemachine.replica.ReplicaView;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.protocol.exceptions.ReconfigurationInProgressException;
import org.apache.ratis.protocol.exceptions.ReconfigurationTimeoutException;
import org.apache.ratis.protocol.exceptions.SetConfigurationException;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Membership changes through Ratis's set-configuration (Raft §6): learners are Ratis listeners, voters are
 * Ratis followers. Each change reads the configuration after a leadership confirmation, checks the request
 * against it, and submits the new configuration in COMPARE_AND_SET mode, so a change that raced another one
 * fails (ABORTED) instead of undoing it. Always through the {@code List<RaftPeer>} form of the arguments:
 * Ratis 3.3.0's {@code RaftPeer[]} overload drops the voters (docs/ratis.md §14).
 *
 * <p>API addresses are not part of Ratis's configuration; they are replicated state ({@link MemberApi}
 * entries) that {@link ApiAddressPublisher} and {@link #add} write.
 *
 * <p>Changes sent through one node run one at a time on the node's blocking pool (the admin calls block).
 */
public final class RaftMembership implements Membership {
  private static final Logger LOG = LoggerFactory.getLogger(RaftMembership.class);

  private final CellDivision cell;
  private final Supplier<RaftClient> admins;
  private final Proposer proposer;
  private final Confirmer confirmer;
  private final ReplicaView replica;
  private final long transferTimeoutMs;
  private final LeadershipLease lease;
  private final Executor blocking;
  /** The change last submitted through this node: each starts once the one before it has ended. */
  private CompletableFuture<?> lastChange = CompletableFuture.completedFuture(null);

  /**
   * @param cell the cell's division on this node
   * @param admins builds a Ratis client for one set-configuration or leadership transfer (from the group as
   *     configured at that moment; closed after the call), whose request timeout allows a new member's catch-up
   * @param proposer submits {@link MemberApi} entries
   * @param confirmer leadership confirmations before each read of the configuration
   * @param replica the local state (API addresses)
   * @param transferTimeoutMs how long a leadership transfer may take, ms
   * @param lease this node's leadership lease, or {@code null} ({@code --confirm strict})
   * @param blocking the node's blocking pool, which runs the changes
   */
  public RaftMembership(CellDivision cell, Supplier<RaftClient> admins, Proposer proposer, Confirmer confirmer,
                        ReplicaView replica, long transferTimeoutMs, LeadershipLease lease, Executor blocking) {
    this.cell = cell;
    this.admins = admins;
    this.proposer = proposer;
    this.confirmer = confirmer;
    this.replica = replica;
    this.transferTimeoutMs = transferTimeoutMs;
    this.lease = lease;
    this.blocking = blocking;
  }

  @Override
  public CompletableFuture<MemberListResponse> list() {
    return fresh().thenApply(x -> MemberListResponse.newBuilder().addAllMembers(members()).setLeader(leader())
        .build());
  }

  @Override
  public CompletableFuture<List<Member>> add(String id, String raftAddress, String apiAddress) {
    return change(() -> {
      Conf conf = Conf.read(cell);
      RaftPeer existing = conf.find(id);
      if (existing != null) {
        throw Status.ALREADY_EXISTS.withDescription("member " + id + " already exists ("
            + conf.roleOf(existing).name().toLowerCase() + " at " + existing.getAddress() + ")").asRuntimeException();
      }
      for (RaftPeer p : conf.all()) {
        if (p.getAddress().equals(raftAddress)) {
          throw Status.ALREADY_EXISTS.withDescription("Raft address " + raftAddress + " is already member "
              + p.getId() + "'s").asRuntimeException();
        }
      }
      publish(id, apiAddress);
      List<RaftPeer> listeners = new ArrayList<>(conf.listeners);
      listeners.add(peer(id, raftAddress, RaftPeerRole.LISTENER));
      setConfiguration(conf, conf.voters, listeners);
    });
  }

  /**
   * Promotes a learner in two configuration changes. Ratis 3.3.0 never marks a listener added by
   * set-configuration as caught up ({@code LeaderStateImpl.checkStaging} calls {@code catchUp()} only for peers
   * that are voters by then), so the leader keeps flagging its appends "initializing" and its server never
   * leaves STARTING: promoted in place it would count towards commits yet neither vote nor stand for election
   * until the next leader change. Hence the learner first leaves the configuration, then comes back as a
   * voter: Ratis stages it as a new peer (the leader starts it from its latest snapshot again, then the log
   * since), marks it caught up, and commits the joint configuration (Raft §6). Should the second step fail, the
   * learner is put back.
   */
  @Override
  public CompletableFuture<List<Member>> promote(String id) {
    return change(() -> {
      Conf conf = Conf.read(cell);
      RaftPeer learner = conf.require(id);
      if (conf.voters.contains(learner)) {
        throw Status.FAILED_PRECONDITION.withDescription("member " + id + " is already a voter")
            .asRuntimeException();
      }
      List<RaftPeer> others = new ArrayList<>(conf.listeners);
      others.remove(learner);
      setConfiguration(conf, conf.voters, others);
      Conf without = new Conf(conf.voters, List.copyOf(others));
      List<RaftPeer> voters = new ArrayList<>(conf.voters);
      voters.add(peer(id, learner.getAddress(), RaftPeerRole.FOLLOWER));
      try {
        setConfiguration(without, voters, others);
      } catch (RuntimeException e) {
        try {
          setConfiguration(without, conf.voters, conf.listeners);
        } catch (RuntimeException again) {
          LOG.error("promoting {} failed and it could not be put back as a learner: add it again", id, again);
        }
        throw e;
      }
    });
  }

  /**
   * Removes a member. The leader is removed as a follower: its leadership first moves to another voter, since
   * Ratis 3.3.0 deadlocks a leader that commits a configuration without itself while clients write through it
   * (docs/ratis.md §14). With the leadership lease only the leader's own node can start that move, so elsewhere
   * the removal of the leader is UNAVAILABLE and a client moves on to the next endpoint (the Java client sends
   * membership calls to the leader's first).
   */
  @Override
  public CompletableFuture<List<Member>> remove(String id) {
    return change(() -> {
      Conf conf = Conf.read(cell);
      RaftPeer gone = conf.require(id);
      if (conf.voters.size() == 1 && conf.voters.contains(gone)) {
        throw Status.FAILED_PRECONDITION.withDescription("member " + id + " is the last voter; add and promote "
            + "another member before removing it").asRuntimeException();
      }
      if (id.equals(leader())) {
        transfer(successor(conf, gone).getId(), "member " + id + " leads: it is removed once its leadership has "
            + "moved, which only its own node can start; send the removal to its API");
      }
      List<RaftPeer> voters = new ArrayList<>(conf.voters);
      voters.remove(gone);
      List<RaftPeer> listeners = new ArrayList<>(conf.listeners);
      listeners.remove(gone);
      setConfiguration(conf, voters, listeners);
      try {
        publish(id, ""); // forget its API address
      } catch (CompletionException e) {
        // The member is removed already; a stale address is harmless (lists show configured members only).
        LOG.warn("member {} removed, but its API address was not forgotten: {}", id, e.getCause());
      }
    });
  }

  @Override
  public CompletableFuture<String> transferLeadership(String to) {
    return fresh().thenCompose(x -> serially(() -> {
      Conf conf = Conf.read(cell);
      RaftPeer target = conf.require(to);
      if (!conf.voters.contains(target)) {
        throw Status.FAILED_PRECONDITION.withDescription("member " + to + " is a learner; only a voter can lead")
            .asRuntimeException();
      }
      if (!to.equals(leader())) {
        transfer(target.getId(), "a leadership transfer is sent to the leader's API");
      }
      return to;
    }));
  }

  /**
   * The voter to hand a leaving leader's leadership to: of the others, the one whose log reaches furthest as this
   * node sees it while it leads (a stopped voter's stays behind, and a transfer to it would time out and fail the
   * removal); without those figures (this node does not lead), the first other voter.
   */
  private RaftPeer successor(Conf conf, RaftPeer gone) {
    Map<String, Long> match;
    try {
      match = FollowerMatchIndexes.of(cell.division().getInfo());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return conf.voters.stream().filter(p -> !p.equals(gone))
        .max(Comparator.comparingLong(p -> match == null ? 0 : match.getOrDefault(p.getId().toString(), -1L)))
        .orElseThrow();
  }

  /**
   * Moves the leadership to {@code target}: through any node without the leadership lease, from the leader's own
   * node with it ({@link #transferFromHere}; elsewhere UNAVAILABLE, {@code elsewhere} saying what to do).
   */
  private void transfer(RaftPeerId target, String elsewhere) {
    if (lease == null) {
      check(admin -> admin.admin().transferLeadership(target, transferTimeoutMs));
    } else {
      transferFromHere(target, elsewhere);
    }
  }

  /**
   * With the leadership lease, only the leader's own node may start a transfer: the transferee's election skips
   * the pre-vote, so the leader must stop answering under its lease first ({@link LeadershipLease#suspend}),
   * and a transfer sent to the leader by another node would not tell it. The local Ratis server transfers only
   * while it leads. Elsewhere the call is UNAVAILABLE, so that a client moves on to the next endpoint.
   */
  private void transferFromHere(RaftPeerId target, String elsewhere) {
    String leader = leader();
    if (!leader.equals(cell.serverId().toString())) {
      throw Status.UNAVAILABLE.withDescription("this node is not the leader" + (leader.isEmpty() ? "" : " (" + leader
          + " is)") + ": " + elsewhere).asRuntimeException();
    }
    lease.suspend();
    RaftClientReply reply;
    try {
      reply = cell.server().transferLeadershipAsync(new TransferLeadershipRequest(ClientId.randomId(), cell.serverId(),
          cell.groupId(), 0, target, transferTimeoutMs)).get(transferTimeoutMs + 5_000, TimeUnit.MILLISECONDS);
    } catch (IOException | ExecutionException | TimeoutException e) {
      throw failure(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
    } finally {
      lease.resume();
    }
    if (!reply.isSuccess()) {
      throw failure(reply.getException());
    }
  }

  /** Every member in the local configuration: voters, then learners, with their published API addresses. */
  public List<Member> members() {
    Conf conf = Conf.read(cell);
    var apis = replica.read(txn -> txn.memberApis());
    List<Member> out = new ArrayList<>();
    for (RaftPeer p : conf.all()) {
      String id = p.getId().toString();
      out.add(Member.newBuilder().setId(id).setAddress(p.getAddress()).setApiAddress(apis.getOrDefault(id, ""))
          .setRole(conf.voters.contains(p) ? Member.Role.VOTER : Member.Role.LEARNER).build());
    }
    return out;
  }

  /** Runs {@code change} on the blocking pool after every change submitted before it (its admin calls block). */
  private synchronized <T> CompletableFuture<T> serially(Supplier<T> change) {
    CompletableFuture<T> next = lastChange.handle((r, e) -> null).thenApplyAsync(x -> change.get(), blocking);
    lastChange = next;
    return next;
  }

  /** Records {@code id}'s API address in the replicated state ("" forgets it); waits for the commit. */
  void publish(String id, String apiAddress) {
    LogEntry.Builder e = LogEntry.newBuilder().setMemberApi(MemberApi.newBuilder().setMemberId(id)
        .setApiAddress(apiAddress));
    proposer.propose(e).join();
  }

  private String leader() {
    try {
      RaftPeerId id = cell.division().getInfo().getLeaderId();
      return id == null ? "" : id.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A confirmation round, then the local replica caught up to it: its configuration is at least as new. */
  private CompletableFuture<Long> fresh() {
    return confirmer.confirm(List.of(), List.of()).thenCompose(r -> replica.hub().awaitApplied(r.getIndex()));
  }

  private CompletableFuture<List<Member>> change(Runnable body) {
    return fresh().thenCompose(x -> serially(() -> {
      body.run();
      return members();
    }));
  }

  private void setConfiguration(Conf current, List<RaftPeer> voters, List<RaftPeer> listeners) {
    SetConfigurationRequest.Arguments args = SetConfigurationRequest.Arguments.newBuilder()
        .setServersInNewConf(voters).setListenersInNewConf(listeners)
        .setServersInCurrentConf(current.voters).setListenersInCurrentConf(current.listeners)
        .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET).build();
    check(admin -> admin.admin().setConfiguration(args));
  }

  private static RaftPeer peer(String id, String address, RaftPeerRole role) {
    return RaftPeer.newBuilder().setId(id).setAddress(address).setStartupRole(role).build();
  }

  /** Runs an admin call on a fresh client and maps its failure onto the statuses of the Cluster service. */
  private void check(AdminCall call) {
    RaftClientReply reply;
    try (RaftClient admin = admins.get()) {
      reply = call.run(admin);
    } catch (IOException e) {
      throw failure(e);
    }
    if (!reply.isSuccess()) {
      throw failure(reply.getException());
    }
  }

  private static RuntimeException failure(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof ReconfigurationInProgressException
          || c instanceof SetConfigurationException && c.getMessage().contains("is different than")) {
        return Status.ABORTED.withDescription("another membership change is in progress or raced this one; "
            + "nothing changed by this call, retry").asRuntimeException();
      }
      if (c instanceof SetConfigurationException) {
        return Status.FAILED_PRECONDITION.withDescription("refused by Raft: " + c.getMessage())
            .asRuntimeException();
      }
      if (c instanceof ReconfigurationTimeoutException) {
        return Status.UNAVAILABLE.withDescription("the new member did not catch up in time; is it running, "
            + "started without peers, at that Raft address? Nothing changed").asRuntimeException();
      }
    }
    return Status.UNAVAILABLE.withDescription("the change was not confirmed: " + e).withCause(e)
        .asRuntimeException();
  }

  @FunctionalInterface
  private interface AdminCall {
    RaftClientReply run(RaftClient admin) throws IOException;
  }

  /** The current configuration of the local division: voters and listeners, in the order Ratis keeps. */
  private record Conf(List<RaftPeer> voters, List<RaftPeer> listeners) {
    static Conf read(CellDivision cell) {
      try {
        RaftConfiguration c = cell.division().getRaftConf();
        return new Conf(List.copyOf(c.getCurrentPeers(RaftPeerRole.FOLLOWER)),
            List.copyOf(c.getCurrentPeers(RaftPeerRole.LISTENER)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    List<RaftPeer> all() {
      List<RaftPeer> all = new ArrayList<>(voters);
      all.addAll(listeners);
      return all;
    }

    RaftPeer find(String id) {
      return all().stream().filter(p -> p.getId().toString().equals(id)).findFirst().orElse(null);
    }

    RaftPeer require(String id) {
      RaftPeer p = find(id);
      if (p == null) {
        throw Status.NOT_FOUND.withDescription("no member " + id + " (members: "
            + all().stream().map(x -> x.getId().toString()).toList() + ")").asRuntimeException();
      }
      return p;
    }

    Member.Role roleOf(RaftPeer p) {
      return voters.contains(p) ? Member.Role.VOTER : Member.Role.LEARNER;
    }
  }
}
