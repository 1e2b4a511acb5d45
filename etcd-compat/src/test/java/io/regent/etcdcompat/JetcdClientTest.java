package io.regent.etcdcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static io.regent.etcdcompat.Jetcd.bytes;
import static io.regent.etcdcompat.Jetcd.get;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Election;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.election.LeaderKey;
import io.etcd.jetcd.election.LeaderResponse;
import io.etcd.jetcd.election.NoLeaderException;
import io.etcd.jetcd.election.NotLeaderException;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lock.LockResponse;
import io.etcd.jetcd.options.LeaseOption;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * etcd's own Java client, jetcd, on Regent's etcd-compatible services of a 3-node cluster, through a follower
 * (which forwards to the leader): leases, elections and locks as a jetcd user writes them.
 */
@ExtendWith(EtcdCompatCluster.Shared.class)
@Tag("cluster")
class JetcdClientTest {

  static EtcdCompatCluster cluster;
  static Client client;

  @BeforeAll
  static void start(EtcdCompatCluster shared) throws Exception {
    cluster = shared;
    client = Client.builder().endpoints("http://" + cluster.followerEndpoint()).build();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
  }

  @Test
  void leasesAreGrantedRenewedMeasuredAndRevokedAsEtcdDoes() throws Exception {
    Lease lease = client.getLeaseClient();
    var granted = get(lease.grant(5));
    assertThat(granted.getID()).isPositive();
    assertThat(granted.getTTL()).isEqualTo(5);
    assertThat(get(lease.grant(1)).getTTL()).as("raised to the cluster's minimum, 1.8 s in whole seconds")
        .isEqualTo(2);
    assertThat(get(lease.keepAliveOnce(granted.getID())).getTTL()).isEqualTo(5);
    var ttl = get(lease.timeToLive(granted.getID(), LeaseOption.newBuilder().withAttachedKeys().build()));
    assertThat(ttl.getGrantedTTL()).isEqualTo(5);
    assertThat(ttl.getTTL()).isBetween(0L, 5L);

    get(lease.revoke(granted.getID()));
    assertThat(get(lease.timeToLive(granted.getID(), LeaseOption.DEFAULT)).getTTL()).as("etcd's 'expired'")
        .isEqualTo(-1);
    assertThatThrownBy(() -> get(lease.revoke(granted.getID()))).hasMessageContaining("requested lease not found");
    assertThatThrownBy(() -> get(lease.keepAliveOnce(granted.getID())))
        .as("TTL 0, which jetcd turns into its not-found error").hasMessageContaining("requested lease not found");
    assertThatThrownBy(() -> get(lease.grant(1_000_000))).hasMessageContaining("too large lease TTL");
  }

  @Test
  void aKeepAliveStreamRenewsUntilClosed() throws Exception {
    Lease lease = client.getLeaseClient();
    long id = get(lease.grant(3)).getID();
    BlockingQueue<LeaseKeepAliveResponse> renewals = new LinkedBlockingQueue<>();
    try (var stream = lease.keepAlive(id, new StreamObserver<>() {
      @Override
      public void onNext(LeaseKeepAliveResponse r) {
        renewals.add(r);
      }

      @Override
      public void onError(Throwable t) {
      }

      @Override
      public void onCompleted() {
      }
    })) {
      for (int i = 0; i < 3; i++) { // jetcd renews every TTL/3: three renewals span more than one TTL
        LeaseKeepAliveResponse r = renewals.poll(Jetcd.WAIT_S, TimeUnit.SECONDS);
        assertThat(r).as("renewal %d", i).isNotNull();
        assertThat(r.getTTL()).isEqualTo(3);
      }
    }
    assertThat(get(lease.timeToLive(id, LeaseOption.DEFAULT)).getTTL()).as("alive after 3 renewals").isNotNegative();
  }

  @Test
  void anElectionHasOneLeaderWhoseRevisionIsItsFencingToken() throws Exception {
    Lease lease = client.getLeaseClient();
    Election election = client.getElectionClient();
    long a = get(lease.grant(30)).getID();
    long b = get(lease.grant(30)).getID();
    ByteSequence name = bytes("jobs");
    assertThatThrownBy(() -> get(election.leader(name))).hasCauseInstanceOf(NoLeaderException.class);

    LeaderKey first = get(election.campaign(name, a, bytes("a"))).getLeader();
    assertThat(first.getKey().toString(StandardCharsets.UTF_8)).isEqualTo("jobs/" + Long.toHexString(a));
    assertThat(first.getRevision()).isPositive();
    assertThat(first.getLease()).isEqualTo(a);
    get(election.proclaim(first, bytes("a2")));
    var kv = get(election.leader(name)).getKv();
    assertThat(kv.getValue().toString(StandardCharsets.UTF_8)).isEqualTo("a2");
    assertThat(kv.getLease()).isEqualTo(a);
    assertThat(kv.getCreateRevision()).isEqualTo(first.getRevision());

    BlockingQueue<LeaderResponse> observed = new LinkedBlockingQueue<>();
    election.observe(name, new Election.Listener() {
      @Override
      public void onNext(LeaderResponse r) {
        observed.add(r);
      }

      @Override
      public void onError(Throwable t) {
      }

      @Override
      public void onCompleted() {
      }
    });
    assertThat(observed.poll(Jetcd.WAIT_S, TimeUnit.SECONDS).getKv().getValue().toString(StandardCharsets.UTF_8))
        .as("Observe starts with the current leader").isEqualTo("a2");

    CompletableFuture<io.etcd.jetcd.election.CampaignResponse> waiting = election.campaign(name, b, bytes("b"));
    get(election.resign(first));
    LeaderKey second = get(waiting).getLeader();
    assertThat(second.getLease()).isEqualTo(b);
    assertThat(second.getRevision()).as("the next leader's token is larger").isGreaterThan(first.getRevision());
    assertThat(observed.poll(Jetcd.WAIT_S, TimeUnit.SECONDS).getKv().getValue().toString(StandardCharsets.UTF_8))
        .isEqualTo("b");
    assertThatThrownBy(() -> get(election.proclaim(first, bytes("zombie")))).as("the deposed leader")
        .hasCauseInstanceOf(NotLeaderException.class);
    get(election.resign(first)); // etcd: resigning what one no longer holds succeeds and changes nothing
    assertThat(get(election.leader(name)).getKv().getLease()).isEqualTo(b);
  }

  @Test
  void aLockIsHeldByOneLeaseAtATime() throws Exception {
    Lease lease = client.getLeaseClient();
    Lock lock = client.getLockClient();
    long a = get(lease.grant(30)).getID();
    long b = get(lease.grant(30)).getID();
    ByteSequence name = bytes("db");
    LockResponse held = get(lock.lock(name, a));
    assertThat(held.getKey().toString(StandardCharsets.UTF_8)).isEqualTo("db/" + Long.toHexString(a));
    assertThat(held.getHeader().getRevision()).as("the fencing token").isPositive();

    CompletableFuture<LockResponse> next = lock.lock(name, b);
    get(lock.unlock(bytes("db/" + Long.toHexString(b)))).getHeader(); // a waiter's key: nothing to release
    assertThat(next).as("b still waits").isNotDone();
    get(lock.unlock(held.getKey()));
    LockResponse then = get(next);
    assertThat(then.getKey().toString(StandardCharsets.UTF_8)).isEqualTo("db/" + Long.toHexString(b));
    assertThat(then.getHeader().getRevision()).isGreaterThan(held.getHeader().getRevision());
    assertThatThrownBy(() -> get(lock.unlock(bytes("no-lease-here")))).hasMessageContaining("is not NAME/LEASE");
  }
}
