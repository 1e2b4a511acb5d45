package io.regent.server.security;

import io.regent.server.cluster.FreePorts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.MaintenanceGrpc;
import io.regent.api.v1.SnapshotRequest;
import io.regent.api.v1.StatusRequest;
import io.regent.client.RegentClient;
import io.regent.client.RegentClientBuilder;
import io.regent.server.RegentServer;
import io.regent.server.config.ServerConfig;
import io.regent.server.ratis.RaftSetup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3-node cluster with mutual TLS on the API and between Raft peers and a permissions file, with
 * certificates made by {@link CertificateAuthority} (as {@code regent certs init} makes them).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("cluster")
class SecureClusterTest {
  static final List<String> NODES = List.of("n0", "n1", "n2");
  static final ByteString A = ByteString.copyFromUtf8("a");

  @TempDir
  static Path dir;
  Path certs;
  Path otherCa;
  final List<RegentServer> nodes = new ArrayList<>();
  final List<RegentClient> clients = new ArrayList<>();
  final List<String> endpoints = new ArrayList<>();
  RegentClient admin;
  Map<String, String> peers;

  @BeforeAll
  void start() throws Exception {
    certs = dir.resolve("certs");
    TestCerts.write(certs, NODES, List.of("admin", "app", "app2", "reader"));
    otherCa = dir.resolve("other-ca");
    TestCerts.write(otherCa, List.of("n0"), List.of("admin"));
    Path permissions = dir.resolve("permissions");
    Files.writeString(permissions, String.join("\n",
        "admin  *     all",
        "app    jobs/ campaign,read",
        "app    *     lease",
        "app2   jobs/ campaign",
        "app2   *     lease",
        "reader *     read", ""));
    peers = new LinkedHashMap<>();
    List<Integer> apiPorts = new ArrayList<>();
    for (String id : NODES) {
      peers.put(id, "127.0.0.1:" + FreePorts.next());
      apiPorts.add(FreePorts.next());
    }
    for (int i = 0; i < NODES.size(); i++) {
      String id = NODES.get(i);
      nodes.add(RegentServer.start(ServerConfig.of(id, peers, apiPorts.get(i), dir.resolve(id)),
          TestCerts.mutual(certs, id, permissions)));
      endpoints.add("127.0.0.1:" + apiPorts.get(i));
    }
    admin = client("admin");
    await().atMost(Duration.ofSeconds(60)).until(() -> nodes.stream().anyMatch(SecureClusterTest::readyLeader));
  }

  @AfterAll
  void stop() throws Exception {
    clients.forEach(RegentClient::close);
    for (RegentServer n : nodes) {
      n.close();
    }
  }

  @Test
  void raftOverMutualTlsFormsAClusterAndElects() {
    await().atMost(Duration.ofSeconds(60)).until(() -> nodes.stream().anyMatch(SecureClusterTest::readyLeader));
    var status = await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(admin.cluster()::status,
        s -> !s.getLeader().isEmpty());
    assertThat(status.getMembersList()).hasSize(3);
    assertThat(admin.leases().grant(5_000)).as("a replicated entry commits over TLS").isPositive();
  }

  @Test
  void theRaftPortSpeaksOnlyMutualTls() {
    String raft = peers.get("n1");
    Path ca = certs.resolve("ca.crt");
    // A node's certificate gets through the handshake: the call then reaches Ratis's gRPC server, which
    // does not serve Regent's API (UNIMPLEMENTED). Without a certificate, or in plaintext, no call gets that far.
    assertThat(statusCodeAt(raft, RegentClientBuilder.credentials(ca, certs.resolve("n0.crt"),
        certs.resolve("n0.key"))))
        .isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(statusCodeAt(raft, RegentClientBuilder.credentials(ca, null, null))).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(statusCodeAt(raft, RegentClientBuilder.credentials(null, null,
        null))).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(statusCodeAt(raft, RegentClientBuilder.credentials(otherCa.resolve("ca.crt"), otherCa.resolve("n0.crt"),
        otherCa.resolve("n0.key")))).isEqualTo(Status.Code.UNAVAILABLE);
  }

  private static Status.Code statusCodeAt(String target, ChannelCredentials credentials) {
    ManagedChannel channel = Grpc.newChannelBuilder(target, credentials).build();
    try {
      ClusterGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS)
          .status(StatusRequest.getDefaultInstance());
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void callsWithoutAClientCertificateOrInPlaintextAreRefused() {
    RegentClient noCert = track(RegentClient.builder().endpoints(endpoints).caCert(certs.resolve("ca.crt")).build());
    assertThatThrownBy(noCert.cluster()::status).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    RegentClient plain = track(RegentClient.connect(endpoints));
    assertThatThrownBy(() -> plain.leases().grant(5_000)).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
  }

  @Test
  void certificatesOfAnotherCaAreRefusedBothWays() {
    RegentClient foreignClient = track(RegentClient.builder().endpoints(endpoints).caCert(certs.resolve("ca.crt"))
        .clientCert(otherCa.resolve("admin.crt"), otherCa.resolve("admin.key")).build());
    assertThatThrownBy(foreignClient.cluster()::status).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    RegentClient trustsOtherCa = track(RegentClient.builder().endpoints(endpoints).caCert(otherCa.resolve("ca.crt"))
        .clientCert(certs.resolve("admin.crt"), certs.resolve("admin.key")).build());
    assertThatThrownBy(trustsOtherCa.cluster()::status).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
  }

  @Test
  void anIdentityLackingTheRightIsDeniedAndNothingChanges() {
    RegentClient app = client("app");
    RegentClient reader = client("reader");
    long lease = app.leases().grant(10_000);
    assertDenied(() -> app.elections().campaign("billing/x", lease, A));
    assertDenied(() -> app.elections().tryCampaign("billing/x", lease, A));
    assertThat(admin.elections().leader("billing/x")).isEmpty();
    assertThat(admin.leases().timeToLive(lease).getNamesList()).as("the lease joined no name").isEmpty();

    LeaderKey held = app.elections().campaign("jobs/a", lease, A);
    assertDenied(() -> reader.leases().grant(5_000));
    assertDenied(() -> reader.elections().proclaim(held, ByteString.copyFromUtf8("seized")));
    assertDenied(() -> reader.elections().resign(held));
    assertDenied(() -> reader.elections().freshToken(held));
    assertDenied(() -> reader.leases().revoke(lease));
    assertThat(admin.elections().leader("jobs/a")).contains(held);
    assertThat(reader.elections().leader("jobs/a")).as("reading is the right reader has").contains(held);
    assertDenied(() -> app.elections().leader("other"));
    assertDenied(() -> app.cluster().status());
    assertDenied(() -> app.cluster().memberRemove("n2"));
    assertThat(admin.cluster().memberList().getMembersList()).hasSize(3);
    app.elections().resign(held);
  }

  @Test
  void anAllowedIdentityCampaignsProclaimsAndResigns() {
    RegentClient app = client("app");
    long lease = app.leases().grant(10_000);
    LeaderKey key = app.elections().campaign("jobs/b", lease, A);
    LeaderKey proclaimed = app.elections().proclaim(key, ByteString.copyFromUtf8("b"));
    assertThat(proclaimed.getToken()).isEqualTo(key.getToken());
    assertThat(admin.elections().leader("jobs/b").orElseThrow().getValue().toStringUtf8()).isEqualTo("b");
    assertThat(app.leases().keepAliveMany(List.of(lease), 10_000)).containsKey(lease);
    assertThat(client("reader").cluster().memberList().getMembersList()).as("member list is a read").hasSize(3);
    LeaderKey fresh = app.elections().freshToken(proclaimed);
    assertThat(fresh.getToken()).isGreaterThan(key.getToken());
    app.elections().resign(fresh);
    assertThat(admin.elections().leader("jobs/b")).isEmpty();
    app.leases().revoke(lease);
  }

  @Test
  void onlyTheHolderByTokenMayProclaimResignOrTakeAFreshToken() {
    RegentClient app = client("app");
    RegentClient app2 = client("app2");
    long lease = app.leases().grant(10_000);
    LeaderKey held = app.elections().campaign("jobs/c", lease, A);
    long other = app2.leases().grant(10_000);
    assertThat(app2.elections().tryCampaign("jobs/c", other, ByteString.copyFromUtf8("b")).getElected()).isFalse();
    for (long token : new long[] {held.getToken() - 1, held.getToken() + 1_000}) {
      LeaderKey forged = held.toBuilder().setToken(token).setLease(other).build();
      assertPrecondition(() -> app2.elections().proclaim(forged, ByteString.copyFromUtf8("seized")));
      assertPrecondition(() -> app2.elections().freshToken(forged));
      assertPrecondition(() -> app2.elections().resign(forged));
    }
    assertThat(admin.elections().leader("jobs/c")).contains(held);

    LeaderKey fresh = app.elections().freshToken(held);
    assertPrecondition(() -> app.elections().proclaim(held,
        ByteString.copyFromUtf8("stale"))); // the old token is stale now
    assertPrecondition(() -> app.elections().resign(held));
    assertThat(admin.elections().leader("jobs/c")).contains(fresh);
    app.elections().resign(fresh);
    app.leases().revoke(lease);
    app2.leases().revoke(other);
  }

  @Test
  void administrativeCallsNeedTheMemberRight() {
    ManagedChannel channel = Grpc.newChannelBuilder(endpoints.get(0), RegentClientBuilder.credentials(
        certs.resolve("ca.crt"), certs.resolve("app.crt"), certs.resolve("app.key"))).build();
    try {
      var stream = MaintenanceGrpc.newBlockingStub(channel).snapshot(SnapshotRequest.getDefaultInstance());
      assertThatThrownBy(stream::hasNext).isInstanceOfSatisfying(StatusRuntimeException.class,
          e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
    } finally {
      channel.shutdownNow();
    }
  }

  private RegentClient client(String identity) {
    return track(RegentClient.builder().endpoints(endpoints).caCert(certs.resolve("ca.crt"))
        .clientCert(certs.resolve(identity + ".crt"), certs.resolve(identity + ".key")).build());
  }

  private RegentClient track(RegentClient c) {
    clients.add(c);
    return c;
  }

  private static void assertDenied(Runnable call) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
  }

  private static void assertPrecondition(Runnable call) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
  }

  private static boolean readyLeader(RegentServer n) {
    try {
      var info = n.raft().getDivision(RaftSetup.GROUP_ID).getInfo();
      return info.isLeader() && info.isLeaderReady();
    } catch (IOException e) {
      return false;
    }
  }

}
