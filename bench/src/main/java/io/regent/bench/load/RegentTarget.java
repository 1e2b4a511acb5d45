package io.regent.bench.load;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LeaseKeepAliveManyRequest;
import io.regent.api.v1.LeaseKeepAliveManyResponse;
import io.regent.api.v1.LeaseKeepAliveRequest;
import io.regent.api.v1.LeaseKeepAliveResponse;
import io.regent.client.RegentClient;
import io.regent.client.RegentClientBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Regent through its Java client. Client {@code i} starts at endpoint {@code i mod n}, so clients spread over
 * the nodes as independent processes would. Keepalives go one of three ways ({@link Keepalives}).
 */
final class RegentTarget implements Target {
  private final RegentClient client;
  /** Leases per KeepAliveMany call (the server's limit). */
  private static final int KEEPALIVE_BATCH = 10_000;
  private final String keepAliveEndpoint;
  private volatile ManagedChannel keepAliveChannel;
  private final Keepalives keepalives;

  /** How the target renews its leases. */
  enum Keepalives {
    /** Leases due together in one {@code KeepAliveMany} call, on the generated stub to the first endpoint. */
    MANY,
    /**
     * One at a time through {@link io.regent.client.Leases#keepAliveAsync}, on its keepalive streams (the default
     * client).
     */
    STREAM,
    /** One at a time through {@link io.regent.client.Leases#keepAliveAsync} with streams off: one unary call each. */
    UNARY
  }

  private final ClientTls tls;
  /** The tenant whose cell holds this client's leases. */
  private final String tenant;

  RegentTarget(List<String> endpoints, int clientIndex, Keepalives keepalives, ClientTls tls, String tenant) {
    List<String> rotated = new ArrayList<>();
    for (int k = 0; k < endpoints.size(); k++) {
      rotated.add(endpoints.get((clientIndex + k) % endpoints.size()));
    }
    this.client = RegentClient.builder().endpoints(rotated).streamKeepAlives(keepalives != Keepalives.UNARY)
        .caCert(tls.caCert()).clientCert(tls.cert(), tls.key()).build();
    this.tls = tls;
    this.tenant = tenant;
    this.keepAliveEndpoint = rotated.get(0);
    this.keepalives = keepalives;
  }

  @Override
  public long grant(long ttlMs) {
    return client.leases().grant(ttlMs, tenant);
  }

  @Override
  public Held campaign(String name, long lease, String value) {
    LeaderKey k = client.elections().campaign(name, lease, ByteString.copyFromUtf8(value));
    return new Held(name, lease, k.getToken(), k);
  }

  /** Campaign with a TTL (one entry); when the name was held after all, waits for it with the granted lease. */
  @Override
  public Held campaignFresh(String name, long ttlMs, String value) {
    ByteString v = ByteString.copyFromUtf8(value);
    CampaignResponse r = client.elections().campaignWithTtl(name, ttlMs, v, 0);
    LeaderKey k = r.getElected() ? r.getLeader() : client.elections().campaign(name, r.getLease(), v);
    return new Held(name, r.getLease(), k.getToken(), k);
  }

  @Override
  public void resignAndRevoke(Held held) {
    client.elections().resign((LeaderKey) held.handle(), true);
  }

  @Override
  public List<Held> campaignAll(List<String> names, long lease, String value) {
    List<LeaderKey> keys = client.elections().campaignAll(names, lease, ByteString.copyFromUtf8(value));
    return keys.stream().map(k -> new Held(k.getName(), lease, k.getToken(), k)).toList();
  }

  @Override
  public Held contend(String name, long lease, String value) {
    return campaign(name, lease, value);
  }

  @Override
  public void resign(Held held) {
    client.elections().resign((LeaderKey) held.handle());
  }

  @Override
  public void revoke(long lease) {
    client.leases().revoke(lease);
  }

  @Override
  public boolean leaderRead(String name) {
    return client.elections().leader(name).isPresent();
  }

  @Override
  public Held freshToken(Held held) {
    LeaderKey k = client.elections().freshToken((LeaderKey) held.handle());
    return new Held(held.name(), held.lease(), k.getToken(), k);
  }

  @Override
  public CompletableFuture<Boolean> keepAliveAsync(long lease) {
    if (keepalives != Keepalives.MANY) {
      return client.leases().keepAliveAsync(lease, 10_000).handle((ttl, err) -> {
        if (err == null) {
          return true;
        }
        Throwable t = err instanceof java.util.concurrent.CompletionException && err.getCause() != null
            ? err.getCause() : err;
        if (t instanceof StatusRuntimeException e && e.getStatus().getCode() == Status.Code.NOT_FOUND) {
          return false;
        }
        throw err instanceof RuntimeException r ? r : new java.util.concurrent.CompletionException(t);
      });
    }
    CompletableFuture<Boolean> result = new CompletableFuture<>();
    var call = LeaseGrpc.newFutureStub(keepAliveChannel()).withDeadlineAfter(10, TimeUnit.SECONDS)
        .keepAlive(LeaseKeepAliveRequest.newBuilder().setId(lease).build());
    Futures.addCallback(call, new FutureCallback<LeaseKeepAliveResponse>() {
      @Override
      public void onSuccess(LeaseKeepAliveResponse r) {
        result.complete(true);
      }

      @Override
      public void onFailure(Throwable t) {
        if (t instanceof StatusRuntimeException e && e.getStatus().getCode() == Status.Code.NOT_FOUND) {
          result.complete(false);
        } else {
          result.completeExceptionally(t);
        }
      }
    }, MoreExecutors.directExecutor());
    return result;
  }

  /** One {@code KeepAliveMany} call per 10 000 leases: a single confirmation round renews them all. */
  @Override
  public List<CompletableFuture<Boolean>> keepAliveAsync(long[] leases) {
    if (keepalives != Keepalives.MANY) {
      return Target.super.keepAliveAsync(leases);
    }
    List<CompletableFuture<Boolean>> out = new ArrayList<>(leases.length);
    for (int from = 0; from < leases.length; from += KEEPALIVE_BATCH) {
      int to = Math.min(leases.length, from + KEEPALIVE_BATCH);
      List<CompletableFuture<Boolean>> part = new ArrayList<>(to - from);
      LeaseKeepAliveManyRequest.Builder req = LeaseKeepAliveManyRequest.newBuilder();
      for (int i = from; i < to; i++) {
        req.addIds(leases[i]);
        part.add(new CompletableFuture<>());
      }
      out.addAll(part);
      var call = LeaseGrpc.newFutureStub(keepAliveChannel()).withDeadlineAfter(10, TimeUnit.SECONDS)
          .keepAliveMany(req.build());
      Futures.addCallback(call, new FutureCallback<LeaseKeepAliveManyResponse>() {
        @Override
        public void onSuccess(LeaseKeepAliveManyResponse r) {
          for (int i = 0; i < part.size(); i++) {
            part.get(i).complete(r.getResults(i).getTtlMs() > 0);
          }
        }

        @Override
        public void onFailure(Throwable t) {
          part.forEach(f -> f.completeExceptionally(t));
        }
      }, MoreExecutors.directExecutor());
    }
    return out;
  }

  private ManagedChannel keepAliveChannel() {
    ManagedChannel ch = keepAliveChannel;
    if (ch == null) {
      synchronized (this) {
        if (keepAliveChannel == null) {
          int colon = keepAliveEndpoint.lastIndexOf(':');
          keepAliveChannel = NettyChannelBuilder.forAddress(keepAliveEndpoint.substring(0, colon),
              Integer.parseInt(keepAliveEndpoint.substring(colon + 1)),
              RegentClientBuilder.credentials(tls.caCert(), tls.cert(), tls.key())).build();
        }
        ch = keepAliveChannel;
      }
    }
    return ch;
  }

  @Override
  public void close() {
    client.close();
    if (keepAliveChannel != null) {
      keepAliveChannel.shutdownNow();
    }
  }
}
