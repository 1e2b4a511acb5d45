package io.regent.client;

import com.google.protobuf.ByteString;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.CampaignRequest;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.ClusterGrpc;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.FreshTokenRequest;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaderRequest;
import io.regent.api.v1.LeaseGrantRequest;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LeaseInfo;
import io.regent.api.v1.LeaseKeepAliveManyRequest;
import io.regent.api.v1.LeaseKeepAliveManyResponse;
import io.regent.api.v1.LeaseKeepAliveRequest;
import io.regent.api.v1.LeaseLeasesRequest;
import io.regent.api.v1.LeaseRevokeRequest;
import io.regent.api.v1.LeaseTimeToLiveRequest;
import io.regent.api.v1.LeaseTimeToLiveResponse;
import io.regent.api.v1.Member;
import io.regent.api.v1.MemberAddRequest;
import io.regent.api.v1.MemberListRequest;
import io.regent.api.v1.MemberListResponse;
import io.regent.api.v1.MemberPromoteRequest;
import io.regent.api.v1.MemberRemoveRequest;
import io.regent.api.v1.ObserveRequest;
import io.regent.api.v1.ObserveResponse;
import io.regent.api.v1.ProclaimRequest;
import io.regent.api.v1.ResignRequest;
import io.regent.api.v1.StatusRequest;
import io.regent.api.v1.StatusResponse;
import io.regent.api.v1.TransferLeadershipRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A Regent client over a list of endpoints ({@code host:port} of any nodes' public API). Every node accepts
 * every call (writes are forwarded to the Raft leader), so the client only moves to the next endpoint when
 * one is unreachable (UNAVAILABLE); calls are retried once per endpoint.
 *
 * <p>Errors are {@link StatusRuntimeException}s with the codes of docs/architecture.md §7: INVALID_ARGUMENT, NOT_FOUND,
 * FAILED_PRECONDITION, UNAVAILABLE, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED. Thread-safe.
 */
public final class RegentClient implements AutoCloseable {
  /** Deadline of unary calls other than campaigns, ms. */
  public static final long CALL_TIMEOUT_MS = 15_000;

  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<String> endpoints;
  private volatile int current;

  private RegentClient(List<String> endpoints, ChannelCredentials credentials) {
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("at least one endpoint is required");
    }
    this.endpoints = List.copyOf(endpoints);
    for (String e : endpoints) {
      int colon = e.lastIndexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException("endpoint '" + e + "' is not host:port");
      }
      channels.add(NettyChannelBuilder.forAddress(e.substring(0, colon), Integer.parseInt(e.substring(colon + 1)),
          credentials).build());
    }
  }

  /** Connects (lazily, in plaintext) to {@code endpoints}, each {@code host:port}. */
  public static RegentClient connect(List<String> endpoints) {
    return builder().endpoints(endpoints).build();
  }

  /** A builder, for TLS and client certificates. */
  public static Builder builder() {
    return new Builder();
  }

  /** Parses a comma-separated endpoint list ({@code h1:p1,h2:p2}). */
  public static RegentClient connect(String endpoints) {
    return connect(List.of(endpoints.split(",")));
  }

  /** The endpoints this client uses. */
  public List<String> endpoints() {
    return endpoints;
  }

  /**
   * Grants a lease. @param ttlMs TTL in ms, within [1.5 x max election timeout, 1 h]
   * @return the lease id (the log index of the grant). INVALID_ARGUMENT for a TTL out of range.
   */
  public long grant(long ttlMs) {
    return call(ch -> LeaseGrpc.newBlockingStub(ch).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .grant(LeaseGrantRequest.newBuilder().setTtlMs(ttlMs).build())).getId();
  }

  /** Renews a lease; returns its TTL in ms. NOT_FOUND once the lease is gone or its expiry is decided. */
  public long keepAlive(long leaseId, long timeoutMs) {
    return call(ch -> LeaseGrpc.newBlockingStub(ch).withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS)
        .keepAlive(LeaseKeepAliveRequest.newBuilder().setId(leaseId).build())).getTtlMs();
  }

  /**
   * Renews up to 10 000 leases in one call (one confirmation round for all of them).
   *
   * @return lease id to its TTL in ms, or 0 when the lease is not found or is expiring
   * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT for no id or more than 10 000 ids; UNAVAILABLE when
   *     no ready leader confirmed the round (retry)
   */
  public Map<Long, Long> keepAliveMany(Collection<Long> leaseIds, long timeoutMs) {
    LeaseKeepAliveManyResponse r = call(ch -> LeaseGrpc.newBlockingStub(ch)
        .withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS)
        .keepAliveMany(LeaseKeepAliveManyRequest.newBuilder().addAllIds(leaseIds).build()));
    Map<Long, Long> out = new LinkedHashMap<>();
    r.getResultsList().forEach(x -> out.put(x.getId(), x.getTtlMs()));
    return out;
  }

  /** Revokes a lease, freeing every name it holds. NOT_FOUND when unknown. */
  public void revoke(long leaseId) {
    call(ch -> LeaseGrpc.newBlockingStub(ch).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .revoke(LeaseRevokeRequest.newBuilder().setId(leaseId).build()));
  }

  /** TTL and remaining time (as measured by the leader) of a lease. NOT_FOUND when unknown. */
  public LeaseTimeToLiveResponse timeToLive(long leaseId) {
    return call(ch -> LeaseGrpc.newBlockingStub(ch).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .timeToLive(LeaseTimeToLiveRequest.newBuilder().setId(leaseId).build()));
  }

  /** Every live lease, read linearizably. */
  public List<LeaseInfo> leases() {
    return call(ch -> LeaseGrpc.newBlockingStub(ch).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .leases(LeaseLeasesRequest.getDefaultInstance())).getLeasesList();
  }

  /**
   * Campaigns for {@code name} with a lease and blocks until elected (no deadline). NOT_FOUND when the
   * lease ends first. Retrying keeps the candidate's place (Campaign is idempotent per name and lease).
   */
  public LeaderKey campaign(String name, long leaseId, ByteString value) {
    return campaign(name, leaseId, value, 0);
  }

  /**
   * Like {@link #campaign(String, long, ByteString)}, asking for a lock-delay of {@code lockDelayMs} (0 to
   * 3 600 000 ms): should this lease expire while holding the name, nobody is granted it for that long.
   */
  /**
   * Takes every one of {@code names} or none, in one entry, all with one fencing token; blocks while any is
   * held (queued once, as one candidate for all). Returns one key per name, in order. Errors as
   * {@link #campaign}; FAILED_PRECONDITION when the lease already holds or waits for one of them on its own.
   */
  public List<LeaderKey> campaignAll(List<String> names, long leaseId, ByteString value) {
    return call(ch -> ElectionGrpc.newBlockingStub(ch).campaignAll(io.regent.api.v1.CampaignAllRequest.newBuilder()
        .addAllNames(names).setLease(leaseId).setValue(value).build())).getLeadersList();
  }

  public LeaderKey campaign(String name, long leaseId, ByteString value, long lockDelayMs) {
    return call(ch -> ElectionGrpc.newBlockingStub(ch).campaign(CampaignRequest.newBuilder().setName(name)
        .setLease(leaseId).setValue(value).setLockDelayMs(lockDelayMs).build())).getLeader();
  }

  /**
   * Campaigns for {@code name} with a lease of {@code ttlMs} that the same log entry grants (an election in two
   * entries with {@link #resign(LeaderKey, boolean)}), and returns at once: elected (the leader key holds the new
   * lease), or queued as a candidate with the new lease in {@code lease}. Keep that lease alive from the moment
   * this call was sent ({@link LeaseKeeper#adopt}); campaign again with it to wait for the name.
   * INVALID_ARGUMENT (TTL, name, value, lock-delay), RESOURCE_EXHAUSTED (server limits).
   */
  public CampaignResponse campaignWithTtl(String name, long ttlMs, ByteString value, long lockDelayMs) {
    return call(ch -> ElectionGrpc.newBlockingStub(ch).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .campaign(CampaignRequest.newBuilder().setName(name).setTtlMs(ttlMs).setValue(value)
            .setLockDelayMs(lockDelayMs).build()));
  }

  /** Tries once: elected at once, or not (then the response carries the current holder, if any). */
  public CampaignResponse tryCampaign(String name, long leaseId, ByteString value) {
    return call(ch -> ElectionGrpc.newBlockingStub(ch).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .campaign(CampaignRequest.newBuilder().setName(name).setLease(leaseId).setValue(value).setNoWait(true)
            .build()));
  }

  /** Replaces the holder's value. FAILED_PRECONDITION when {@code key} no longer holds the name. */
  public LeaderKey proclaim(LeaderKey key, ByteString value) {
    return call(ch -> ElectionGrpc.newBlockingStub(ch).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .proclaim(ProclaimRequest.newBuilder().setLeader(key).setValue(value).build())).getLeader();
  }

  /** Gives the name up. FAILED_PRECONDITION when {@code key} no longer holds it. */
  public void resign(LeaderKey key) {
    resign(key, false);
  }

  /**
   * Gives the name up and, with {@code revokeLease}, revokes the holder's lease in the same log entry (freeing
   * every other name it holds). FAILED_PRECONDITION when {@code key} no longer holds the name: nothing changes.
   */
  public void resign(LeaderKey key, boolean revokeLease) {
    call(ch -> ElectionGrpc.newBlockingStub(ch).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .resign(ResignRequest.newBuilder().setLeader(key).setRevokeLease(revokeLease).build()));
  }

  /** A new, larger fencing token for the current holder. FAILED_PRECONDITION when not the holder. */
  public LeaderKey freshToken(LeaderKey key) {
    return call(ch -> ElectionGrpc.newBlockingStub(ch).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .freshToken(FreshTokenRequest.newBuilder().setLeader(key).build())).getLeader();
  }

  /** The current holder of {@code name}, read linearizably; empty when none. */
  public Optional<LeaderKey> leader(String name) {
    try {
      return Optional.of(call(ch -> ElectionGrpc.newBlockingStub(ch)
          .withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
          .leader(LeaderRequest.newBuilder().setName(name).build())).getLeader());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * Streams ownership changes of {@code name} from the current endpoint: first the current holder (when
   * {@code afterIndex} is 0), then one message per change. Cancel with the returned handle.
   */
  public Runnable observe(String name, long afterIndex, StreamObserver<ObserveResponse> observer) {
    var ctx = io.grpc.Context.current().withCancellation();
    ctx.run(() -> ElectionGrpc.newStub(channels.get(current)).observe(ObserveRequest.newBuilder().setName(name)
        .setAfterIndex(afterIndex).build(), observer));
    return () -> ctx.cancel(null);
  }

  /** The answering node's view of the cluster (members, Raft leader, term, indexes). */
  public StatusResponse status() {
    return call(ch -> ClusterGrpc.newBlockingStub(ch).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .status(StatusRequest.getDefaultInstance()));
  }

  /** Deadline of membership changes, ms: adding a member may wait for it to catch up. */
  public static final long MEMBER_CALL_TIMEOUT_MS = 90_000;

  /** Every member (voters and learners) and the Raft leader, read after a leadership confirmation. */
  public MemberListResponse memberList() {
    return call(ch -> ClusterGrpc.newBlockingStub(ch).withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .memberList(MemberListRequest.getDefaultInstance()));
  }

  /**
   * Adds a learner (it receives the log but does not vote) whose node must already run, started without peers.
   * ALREADY_EXISTS when the id or Raft address is a member's; INVALID_ARGUMENT for a malformed one.
   *
   * @return the members afterwards
   */
  public List<Member> memberAdd(String id, String raftAddress, String apiAddress) {
    return call(ch -> ClusterGrpc.newBlockingStub(ch).withDeadlineAfter(MEMBER_CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .memberAdd(MemberAddRequest.newBuilder().setId(id).setRaftAddress(raftAddress).setApiAddress(apiAddress)
            .build())).getMembersList();
  }

  /** Makes a learner a voter. NOT_FOUND when unknown, FAILED_PRECONDITION when already a voter. */
  public List<Member> memberPromote(String id) {
    return call(ch -> ClusterGrpc.newBlockingStub(ch).withDeadlineAfter(MEMBER_CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .memberPromote(MemberPromoteRequest.newBuilder().setId(id).build())).getMembersList();
  }

  /** Removes a member. NOT_FOUND when unknown, FAILED_PRECONDITION for the last voter. */
  public List<Member> memberRemove(String id) {
    return call(ch -> ClusterGrpc.newBlockingStub(ch).withDeadlineAfter(MEMBER_CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .memberRemove(MemberRemoveRequest.newBuilder().setId(id).build())).getMembersList();
  }

  /** Moves Raft leadership to voter {@code to}; returns the new leader's id. */
  public String transferLeadership(String to) {
    return call(ch -> ClusterGrpc.newBlockingStub(ch).withDeadlineAfter(MEMBER_CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .transferLeadership(TransferLeadershipRequest.newBuilder().setTo(to).build())).getLeader();
  }

  /**
   * Runs {@code rpc} against the current endpoint, moving on to the next ones while they are unreachable
   * (also for the other clients of this package, e.g. {@link GroupClient}).
   */
  <T> T call(Function<ManagedChannel, T> rpc) {
    StatusRuntimeException last = null;
    int start = current;
    for (int i = 0; i < channels.size(); i++) {
      int idx = (start + i) % channels.size();
      try {
        T result = rpc.apply(channels.get(idx));
        current = idx;
        return result;
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNAVAILABLE) {
          throw e;
        }
        last = e;
      }
    }
    throw last;
  }

  /** The channel of the current endpoint (for streams, which do not move between endpoints by themselves). */
  ManagedChannel currentChannel() {
    return channels.get(current);
  }

  @Override
  public void close() {
    channels.forEach(ManagedChannel::shutdownNow);
  }

  /**
   * Builds a {@link RegentClient}: endpoints, and optionally TLS ({@link #caCert}) with a client certificate
   * ({@link #clientCert}) for servers that ask for mutual TLS. The flags of {@code etcdctl}:
   * {@code --cacert}, {@code --cert}, {@code --key}.
   */
  public static final class Builder {
    private List<String> endpoints = List.of();
    private Path caCert;
    private Path cert;
    private Path key;

    private Builder() {
    }

    /** The endpoints, each {@code host:port} of a node's public API. */
    public Builder endpoints(List<String> endpoints) {
      this.endpoints = List.copyOf(endpoints);
      return this;
    }

    /** Speaks TLS, trusting server certificates signed by the CA(s) in this PEM file. */
    public Builder caCert(Path caCertPem) {
      this.caCert = caCertPem;
      return this;
    }

    /**
     * Presents this certificate (PEM) and key (unencrypted PKCS#8 PEM) in the TLS handshake; the server
     * knows the client by the certificate's subject CN. Needs {@link #caCert}.
     */
    public Builder clientCert(Path certPem, Path keyPem) {
      this.cert = certPem;
      this.key = keyPem;
      return this;
    }

    /**
     * Builds the client; channels connect lazily.
     *
     * @throws IllegalArgumentException for a bad endpoint, a client certificate without a CA, or a PEM file
     *     that cannot be read (naming it)
     */
    public RegentClient build() {
      return new RegentClient(endpoints, credentials(caCert, cert, key));
    }
  }

  /**
   * Channel credentials for Regent's endpoints: plaintext when {@code caCert} is null, else TLS trusting
   * {@code caCert}, presenting {@code cert} and {@code key} when given (mutual TLS).
   *
   * @throws IllegalArgumentException for a client certificate without a CA, or a PEM file that cannot be
   *     read (naming it)
   */
  public static ChannelCredentials credentials(Path caCert, Path cert, Path key) {
    if (caCert == null) {
      if (cert != null) {
        throw new IllegalArgumentException("a client certificate needs TLS: give the CA certificate too");
      }
      return InsecureChannelCredentials.create();
    }
    TlsChannelCredentials.Builder tls = TlsChannelCredentials.newBuilder();
    try {
      tls.trustManager(caCert.toFile());
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("cannot load the CA certificate " + caCert + ": " + e.getMessage(), e);
    }
    if (cert != null) {
      try {
        tls.keyManager(cert.toFile(), key.toFile());
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException("cannot load the client certificate " + cert + " and key " + key
            + ": " + e.getMessage(), e);
      }
    }
    return tls.build();
  }
}
