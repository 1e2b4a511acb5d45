package io.regent.bench.load;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.CampaignRequest;
import io.etcd.jetcd.api.Compare;
import io.etcd.jetcd.api.DeleteRangeRequest;
import io.etcd.jetcd.api.ElectionGrpc;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.LeaderKey;
import io.etcd.jetcd.api.LeaseGrantRequest;
import io.etcd.jetcd.api.LeaseGrpc;
import io.etcd.jetcd.api.LeaseKeepAliveRequest;
import io.etcd.jetcd.api.LeaseRevokeRequest;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.RangeRequest;
import io.etcd.jetcd.api.RequestOp;
import io.etcd.jetcd.api.ResignRequest;
import io.etcd.jetcd.api.TxnRequest;
import io.etcd.jetcd.api.TxnResponse;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * etcd v3 through its own gRPC API (jetcd's generated stubs on the same grpc-java transport as Regent's
 * client). Campaign = a transaction that creates the key with the lease only if absent; resign and fresh
 * token = transactions conditioned on the key's create revision (etcd's election recipe); handover uses
 * etcd's Election service; reads are linearizable ranges.
 */
final class EtcdTarget implements Target {
  private static final long DEADLINE_MS = 15_000;
  private final ManagedChannel channel;
  private final EtcdKeepAlives keepAlives;

  EtcdTarget(List<String> endpoints, int clientIndex) {
    String ep = endpoints.get(clientIndex % endpoints.size());
    int colon = ep.lastIndexOf(':');
    channel = NettyChannelBuilder.forAddress(ep.substring(0, colon), Integer.parseInt(ep.substring(colon + 1)))
        .usePlaintext().build();
    keepAlives = new EtcdKeepAlives(LeaseGrpc.newStub(channel));
  }

  private KVGrpc.KVBlockingStub kv() {
    return KVGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS);
  }

  private static ByteString key(String name) {
    return ByteString.copyFromUtf8(name);
  }

  @Override
  public long grant(long ttlMs) {
    long ttlSeconds = Math.max(1, (ttlMs + 999) / 1000);
    return LeaseGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS)
        .leaseGrant(LeaseGrantRequest.newBuilder().setTTL(ttlSeconds).build()).getID();
  }

  @Override
  public Held campaign(String name, long lease, String value) {
    TxnResponse r = kv().txn(TxnRequest.newBuilder()
        .addCompare(Compare.newBuilder().setKey(key(name)).setTarget(Compare.CompareTarget.CREATE)
            .setResult(Compare.CompareResult.EQUAL).setCreateRevision(0))
        .addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(key(name))
            .setValue(ByteString.copyFromUtf8(value)).setLease(lease)))
        .build());
    if (!r.getSucceeded()) {
      throw new IllegalStateException("name taken: " + name);
    }
    long rev = r.getHeader().getRevision();
    return new Held(name, lease, rev, rev);
  }

  /** One Txn: if no key of {@code names} exists, put them all with {@code lease}; the tokens are its revision. */
  @Override
  public List<Held> campaignAll(List<String> names, long lease, String value) {
    TxnRequest.Builder txn = TxnRequest.newBuilder();
    for (String name : names) {
      txn.addCompare(Compare.newBuilder().setKey(key(name)).setTarget(Compare.CompareTarget.CREATE)
          .setResult(Compare.CompareResult.EQUAL).setCreateRevision(0));
      txn.addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(key(name))
          .setValue(ByteString.copyFromUtf8(value)).setLease(lease)));
    }
    TxnResponse r = kv().txn(txn.build());
    if (!r.getSucceeded()) {
      throw new IllegalStateException("a name taken among " + names);
    }
    long rev = r.getHeader().getRevision();
    return names.stream().map(n -> new Held(n, lease, rev, rev)).toList();
  }

  /** etcd's Election service: a key per candidate under the name; the oldest one holds it. */
  @Override
  public Held contend(String name, long lease, String value) {
    LeaderKey k = ElectionGrpc.newBlockingStub(channel).campaign(CampaignRequest.newBuilder()
        .setName(key(name)).setLease(lease).setValue(ByteString.copyFromUtf8(value)).build()).getLeader();
    return new Held(name, lease, k.getRev(), k);
  }

  @Override
  public void resign(Held held) {
    if (held.handle() instanceof LeaderKey k) {
      ElectionGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS)
          .resign(ResignRequest.newBuilder().setLeader(k).build());
      return;
    }
    TxnResponse r = kv().txn(TxnRequest.newBuilder().addCompare(createdAt(held))
        .addSuccess(RequestOp.newBuilder().setRequestDeleteRange(DeleteRangeRequest.newBuilder()
            .setKey(key(held.name()))))
        .build());
    if (!r.getSucceeded()) {
      throw new IllegalStateException("not the holder: " + held.name());
    }
  }

  private static Compare createdAt(Held held) {
    return Compare.newBuilder().setKey(key(held.name())).setTarget(Compare.CompareTarget.CREATE)
        .setResult(Compare.CompareResult.EQUAL).setCreateRevision((Long) held.handle()).build();
  }

  @Override
  public void revoke(long lease) {
    LeaseGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS)
        .leaseRevoke(LeaseRevokeRequest.newBuilder().setID(lease).build());
  }

  @Override
  public boolean leaderRead(String name) {
    return kv().range(RangeRequest.newBuilder().setKey(key(name)).build()).getCount() > 0;
  }

  @Override
  public Held freshToken(Held held) {
    TxnResponse r = kv().txn(TxnRequest.newBuilder().addCompare(createdAt(held))
        .addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(key(held.name()))
            .setIgnoreValue(true).setLease(held.lease())))
        .build());
    if (!r.getSucceeded()) {
      throw new IllegalStateException("not the holder: " + held.name());
    }
    return new Held(held.name(), held.lease(), r.getHeader().getRevision(), held.handle());
  }

  @Override
  public CompletableFuture<Boolean> keepAliveAsync(long lease) {
    return keepAlives.send(LeaseKeepAliveRequest.newBuilder().setID(lease).build());
  }

  @Override
  public void close() {
    keepAlives.close();
    channel.shutdownNow();
  }
}
