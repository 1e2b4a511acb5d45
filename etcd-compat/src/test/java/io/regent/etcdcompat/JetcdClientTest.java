package io.regent.etcdcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static io.regent.etcdcompat.Jetcd.bytes;
import static io.regent.etcdcompat.Jetcd.get;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

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
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
 * (which forwards to the leader): leases, elections and locks as a jetcd user writes them; the elections' and locks'
 * keys are in the KV keyspace, as on etcd (docs/migrating.md "etcd's Election and Lock").
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
    assertThat(get(lease.grant(1)).getTTL()).as("raised to the cluster's minimum, 1.35 s in whole seconds")
        .isEqualTo(2);
    assertThat(get(lease.keepAliveOnce(granted.getID())).getTTL()).isEqualTo(5);
    for (String key : new String[] {"ttl-keys/b", "ttl-keys/a"}) {
      get(client.getKVClient().put(bytes(key), bytes("v"), PutOption.builder().withLeaseId(granted.getID()).build()));
    }
    var ttl = get(lease.timeToLive(granted.getID(), LeaseOption.newBuilder().withAttachedKeys().build()));
    assertThat(ttl.getGrantedTTL()).isEqualTo(5);
    assertThat(ttl.getTTL()).isBetween(0L, 5L);
    assertThat(ttl.getKeys()).as("the keys attached to the lease, in key order")
        .containsExactly(bytes("ttl-keys/a"), bytes("ttl-keys/b"));

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
    ByteSequence name = bytes("jetcd-jobs");
    assertThatThrownBy(() -> get(election.leader(name))).hasCauseInstanceOf(NoLeaderException.class);

    LeaderKey first = get(election.campaign(name, a, bytes("a"))).getLeader();
    assertThat(first.getKey().toString(StandardCharsets.UTF_8)).isEqualTo("jetcd-jobs/" + Long.toHexString(a));
    assertThat(first.getRevision()).isPositive();
    assertThat(first.getLease()).isEqualTo(a);
    var key = get(client.getKVClient().get(first.getKey())).getKvs();
    assertThat(key).as("the leader key is in the KV keyspace, as on etcd").hasSize(1);
    assertThat(key.get(0).getCreateRevision()).as("rev is the key's create revision").isEqualTo(first.getRevision());
    assertThat(key.get(0).getLease()).isEqualTo(a);
    get(election.proclaim(first, bytes("a2")));
    var kv = get(election.leader(name)).getKv();
    assertThat(kv.getValue().toString(StandardCharsets.UTF_8)).isEqualTo("a2");
    assertThat(kv.getLease()).isEqualTo(a);
    assertThat(kv.getCreateRevision()).isEqualTo(first.getRevision());
    assertThat(kv.getModRevision()).as("a proclamation is a put").isGreaterThan(first.getRevision());

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
    ByteSequence name = bytes("jetcd-db");
    LockResponse held = get(lock.lock(name, a));
    assertThat(held.getKey().toString(StandardCharsets.UTF_8)).isEqualTo("jetcd-db/" + Long.toHexString(a));
    long token = createRevision(held.getKey());
    assertThat(held.getHeader().getRevision()).as("the lock found free at or after its key's creation")
        .isGreaterThanOrEqualTo(token);

    CompletableFuture<LockResponse> next = lock.lock(name, b);
    await().atMost(Duration.ofSeconds(Jetcd.WAIT_S)).until(() -> keys("jetcd-db/") == 2); // b queued
    assertThat(next).as("b waits").isNotDone();
    get(lock.unlock(held.getKey()));
    LockResponse then = get(next);
    assertThat(then.getKey().toString(StandardCharsets.UTF_8)).isEqualTo("jetcd-db/" + Long.toHexString(b));
    assertThat(createRevision(then.getKey())).as("the next holder's fencing token is larger").isGreaterThan(token);
    assertThat(then.getHeader().getRevision()).isGreaterThan(held.getHeader().getRevision());
    get(lock.unlock(then.getKey()));
    assertThat(keys("jetcd-db/")).isZero();
    get(lock.unlock(bytes("no-lease-here"))); // etcd: Unlock deletes the key it is given, there or not
  }

  /** The create revision of {@code key}, which must exist. */
  static long createRevision(ByteSequence key) throws Exception {
    var kvs = get(client.getKVClient().get(key)).getKvs();
    assertThat(kvs).as("key %s", key).hasSize(1);
    return kvs.get(0).getCreateRevision();
  }

  /** How many keys start with {@code prefix}. */
  static long keys(String prefix) throws Exception {
    return get(client.getKVClient().get(bytes(prefix), GetOption.builder().isPrefix(true).withCountOnly(true)
        .build())).getCount();
  }
}
