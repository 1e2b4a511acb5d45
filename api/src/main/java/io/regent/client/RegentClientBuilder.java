package io.regent.client;

import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.TlsChannelCredentials;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * Builds a {@link RegentClient}: endpoints, and optionally TLS ({@link #caCert}) with a client certificate
 * ({@link #clientCert}) for servers that ask for mutual TLS. The flags of {@code etcdctl}:
 * {@code --cacert}, {@code --cert}, {@code --key}. Got from {@link RegentClient#builder()}.
 */
public final class RegentClientBuilder {
  // Read by RegentClient's constructor (same package); set only through the methods below.
  List<String> endpoints = List.of();
  private Path caCert;
  private Path cert;
  private Path key;
  Duration connectTimeout = Duration.ofSeconds(5);
  Duration callTimeout = Duration.ofMillis(RegentClient.CALL_TIMEOUT_MS);
  Duration attemptTimeout = Duration.ofSeconds(5);
  Duration campaignTimeout = Duration.ofHours(1);
  Duration keepAliveTime = Duration.ofSeconds(10);
  Duration keepAliveTimeout = Duration.ofSeconds(5);
  RetryPolicy retry = RetryPolicy.ONCE;
  Executor executor;
  boolean preferLeader = true;
  boolean streamKeepAlives = true;
  Boolean discover;
  String namespace = "";

  RegentClientBuilder() {
  }

  /** How long opening a TCP connection to one endpoint may take (etcd's {@code --dial-timeout}); default 5 s. */
  public RegentClientBuilder connectTimeout(Duration timeout) {
    this.connectTimeout = positive("connect timeout", timeout);
    return this;
  }

  /**
   * Deadline of each unary call, failovers included (etcd's {@code --command-timeout}); default 15 s.
   * Lease keepalives take theirs from {@link LeaseKeeper}, campaigns from {@link #campaignTimeout}.
   */
  public RegentClientBuilder callTimeout(Duration timeout) {
    this.callTimeout = positive("call timeout", timeout);
    return this;
  }

  /** Longest one attempt at one endpoint of a call that is safe to repeat elsewhere; default 5 s. */
  public RegentClientBuilder attemptTimeout(Duration timeout) {
    this.attemptTimeout = positive("attempt timeout", timeout);
    return this;
  }

  /** How long a blocking campaign without its own timeout waits to be elected; default 1 h. */
  public RegentClientBuilder campaignTimeout(Duration timeout) {
    this.campaignTimeout = positive("campaign timeout", timeout);
    return this;
  }

  /**
   * gRPC keepalive: with calls in flight, ping each connection after {@code time} without traffic and
   * drop it when no answer comes within {@code timeout} (its calls then fail over). gRPC raises a
   * {@code time} below 10 s to 10 s; Regent servers accept pings every 5 s. Default 10 s and 5 s.
   */
  public RegentClientBuilder keepAlive(Duration time, Duration timeout) {
    this.keepAliveTime = positive("keepalive time", time);
    this.keepAliveTimeout = positive("keepalive timeout", timeout);
    return this;
  }

  /** Passes over the endpoints and the pauses between them ({@link RetryPolicy#ONCE} by default). */
  public RegentClientBuilder retry(RetryPolicy policy) {
    this.retry = java.util.Objects.requireNonNull(policy, "policy");
    return this;
  }

  /**
   * Whether writes and linearizable reads go first to the Raft leader's endpoint, learnt from the replies'
   * {@link LeaderMetadata}; default true. False keeps the endpoints' order for every call (a client that
   * should spread its calls over the nodes, or stick to one).
   */
  public RegentClientBuilder preferLeader(boolean prefer) {
    this.preferLeader = prefer;
    return this;
  }

  /**
   * Whether {@link Leases#keepAlive} sends its renewals over one {@code Lease/KeepAliveStream} per
   * endpoint (etcd's LeaseKeepAlive) instead of one unary call each; default true. The rules are the same
   * (hedging, failover, verdicts); a node without the stream gets unary calls.
   */
  public RegentClientBuilder streamKeepAlives(boolean stream) {
    this.streamKeepAlives = stream;
    return this;
  }

  /**
   * Whether the client learns the cluster's other endpoints: after its first reply (and after a new Raft term)
   * it reads the member list and adds each member's published API address, and adds the leader's address
   * when a reply names a leader that no endpoint reaches. Default: true when the client was given exactly
   * one endpoint (a bootstrap address), false for a list (taken as the endpoints to use: proxies, a subset).
   * The learnt addresses are those the nodes advertise ({@code --api-host}, or their Raft host): they must be
   * reachable from the client, and with TLS match the nodes' certificates.
   */
  public RegentClientBuilder discoverEndpoints(boolean discover) {
    this.discover = discover;
    return this;
  }

  /**
   * A namespace: every name this client sends (elections, locks, observers, groups) gets {@code prefix} in front,
   * and every name it receives loses it, so that teams sharing a cluster keep apart by prefix while their code
   * says {@code "jobs"} (as Curator's {@code usingNamespace}); per-name permissions (docs/security.md) can grant a
   * team its prefix. Default none ({@code ""}).
   *
   * @throws NullPointerException for a null prefix
   */
  public RegentClientBuilder namespace(String prefix) {
    this.namespace = java.util.Objects.requireNonNull(prefix, "prefix");
    return this;
  }

  /** Where gRPC runs call callbacks (Observe events); default gRPC's shared cached pool. */
  public RegentClientBuilder executor(Executor executor) {
    this.executor = java.util.Objects.requireNonNull(executor, "executor");
    return this;
  }

  private static Duration positive(String what, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, not " + d);
    }
    return d;
  }

  /** The endpoints, each {@code host:port} of a node's public API. */
  public RegentClientBuilder endpoints(List<String> endpoints) {
    this.endpoints = List.copyOf(endpoints);
    return this;
  }

  /** Speaks TLS, trusting server certificates signed by the CA(s) in this PEM file. */
  public RegentClientBuilder caCert(Path caCertPem) {
    this.caCert = caCertPem;
    return this;
  }

  /**
   * Presents this certificate (PEM) and key (unencrypted PKCS#8 PEM) in the TLS handshake; the server
   * knows the client by the certificate's subject CN. Needs {@link #caCert}.
   */
  public RegentClientBuilder clientCert(Path certPem, Path keyPem) {
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
    return new RegentClient(this, credentials(caCert, cert, key));
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
