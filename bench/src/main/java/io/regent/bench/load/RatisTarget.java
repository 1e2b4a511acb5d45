package io.regent.bench.load;

import io.regent.bench.ratis.BareRatisServer;
import io.regent.server.ratis.RaftSetup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.util.TimeDuration;

/**
 * Bare Ratis ({@link BareRatisServer}, {@code scripts/ratis-cluster.sh}): the floor under Regent. Every
 * operation that is one log entry in Regent is one trivial write here, and a leader read is a linearizable
 * ReadIndex query; so {@code campaign} (campaign with a TTL, then resign-and-revoke) is two writes and
 * {@code campaign4} four, and Regent's figure over this one is what Regent's own layers cost. One Ratis client
 * (one gRPC connection, to the leader) per benchmark client. The handover workload has no meaning here.
 */
final class RatisTarget implements Target {
  private static final Message WRITE = Message.valueOf("w");
  private static final Message READ = Message.valueOf("r");

  private final RaftClient client;

  /** @param endpoints the Raft addresses of {@code n0, n1, ...}, in that order */
  RatisTarget(List<String> endpoints) {
    List<RaftPeer> peers = BareRatisServer.peers(endpoints).entrySet().stream()
        .map(e -> RaftPeer.newBuilder().setId(e.getKey()).setAddress(e.getValue()).build()).toList();
    RaftProperties p = new RaftProperties();
    RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(3, TimeUnit.SECONDS));
    this.client = RaftClient.newBuilder().setProperties(p).setRaftGroup(RaftGroup.valueOf(RaftSetup.GROUP_ID, peers))
        .build();
  }

  /** One write; returns its log index. */
  private long write() {
    try {
      RaftClientReply r = client.io().send(WRITE);
      if (!r.isSuccess()) {
        throw new IllegalStateException("write failed: " + r.getException());
      }
      return r.getLogIndex();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public long grant(long ttlMs) {
    return write();
  }

  @Override
  public Held campaign(String name, long lease, String value) {
    return new Held(name, lease, write(), null);
  }

  @Override
  public Held campaignFresh(String name, long ttlMs, String value) {
    long index = write();
    return new Held(name, index, index, null);
  }

  @Override
  public List<Held> campaignAll(List<String> names, long lease, String value) {
    throw new UnsupportedOperationException("bare Ratis has no names to take at once (campaign-all)");
  }

  @Override
  public Held contend(String name, long lease, String value) {
    throw new UnsupportedOperationException("bare Ratis has no names to contend for (handover)");
  }

  @Override
  public void resign(Held held) {
    write();
  }

  @Override
  public void resignAndRevoke(Held held) {
    write();
  }

  @Override
  public void revoke(long lease) {
    write();
  }

  @Override
  public boolean leaderRead(String name) {
    try {
      RaftClientReply r = client.io().sendReadOnly(READ);
      if (!r.isSuccess()) {
        throw new IllegalStateException("read failed: " + r.getException());
      }
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Held freshToken(Held held) {
    return new Held(held.name(), held.lease(), write(), null);
  }

  @Override
  public CompletableFuture<Boolean> keepAliveAsync(long lease) {
    return client.async().send(WRITE).thenApply(RaftClientReply::isSuccess);
  }

  @Override
  public void close() {
    try {
      client.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
