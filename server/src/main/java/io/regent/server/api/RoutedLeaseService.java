package io.regent.server.api;

import io.grpc.stub.StreamObserver;
import io.regent.api.v1.LeaseGrantRequest;
import io.regent.api.v1.LeaseGrantResponse;
import io.regent.api.v1.LeaseGrpc;
import io.regent.api.v1.LeaseKeepAliveManyRequest;
import io.regent.api.v1.LeaseKeepAliveManyResponse;
import io.regent.api.v1.LeaseKeepAliveRequest;
import io.regent.api.v1.LeaseKeepAliveResponse;
import io.regent.api.v1.LeaseLeasesRequest;
import io.regent.api.v1.LeaseLeasesResponse;
import io.regent.api.v1.LeaseRevokeRequest;
import io.regent.api.v1.LeaseRevokeResponse;
import io.regent.api.v1.LeaseTimeToLiveRequest;
import io.regent.api.v1.LeaseTimeToLiveResponse;
import io.regent.server.placement.LeaseIds;
import io.regent.server.placement.Placement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * {@code regent.v1.Lease} over several cells (docs/architecture.md §14): a grant goes to the cell of its
 * {@code tenant} (cell 0 without one), every other call to the cell its lease id carries. KeepAliveMany renews
 * each cell's ids in that cell's round and answers in the order asked; Leases lists every cell's.
 */
final class RoutedLeaseService extends LeaseGrpc.LeaseImplBase {
  private final CellRoutes routes;
  private final Placement placement;
  private final Supplier<NamedLeader> leader;

  /** @param leader the leader the node's replies name, for keepalive streams to follow it */
  RoutedLeaseService(CellRoutes routes, Placement placement, Supplier<NamedLeader> leader) {
    this.routes = routes;
    this.placement = placement;
    this.leader = leader;
  }

  @Override
  public void grant(LeaseGrantRequest req, StreamObserver<LeaseGrantResponse> obs) {
    CallAnswers.guard(obs, () -> {
      int cell = req.getTenant().isEmpty() ? 0 : placement.cellOf(req.getTenant());
      routes.run(cell, c -> c.lease.grant(req, obs));
    });
  }

  @Override
  public void revoke(LeaseRevokeRequest req, StreamObserver<LeaseRevokeResponse> obs) {
    CallAnswers.guard(obs, () -> routes.run(routes.cellOfLease(req.getId()), c -> c.lease.revoke(req, obs)));
  }

  @Override
  public void keepAlive(LeaseKeepAliveRequest req, StreamObserver<LeaseKeepAliveResponse> obs) {
    CallAnswers.guard(obs, () -> routes.run(routes.cellOfLease(req.getId()), c -> c.lease.keepAlive(req, obs)));
  }

  /** One stream for every cell's leases: each keepalive is renewed in its lease's cell. */
  @Override
  public StreamObserver<LeaseKeepAliveRequest> keepAliveStream(StreamObserver<LeaseKeepAliveResponse> obs) {
    return new KeepAliveStream(obs, id -> routes.all().get(routes.cellOfLease(id)).lease.renewal(id), leader);
  }

  @Override
  public void keepAliveMany(LeaseKeepAliveManyRequest req, StreamObserver<LeaseKeepAliveManyResponse> obs) {
    CallAnswers.guard(obs, () -> {
      if (req.getIdsCount() == 0 || req.getIdsCount() > LeaseService.MAX_KEEPALIVE_IDS) {
        routes.run(0, c -> c.lease.keepAliveMany(req, obs)); // refused there, with its message
        return;
      }
      Map<Integer, LeaseKeepAliveManyRequest.Builder> byCell = new TreeMap<>();
      Map<Long, LeaseKeepAliveResponse> notFound = new HashMap<>();
      for (long id : req.getIdsList()) {
        int cell = LeaseIds.cellOf(id);
        if (cell < 0 || cell >= routes.all().size()) { // no such lease, as a cell answers for one it has not
          notFound.put(id, LeaseKeepAliveResponse.newBuilder().setId(id).setTtlMs(0).build());
        } else {
          byCell.computeIfAbsent(cell, c -> LeaseKeepAliveManyRequest.newBuilder()).addIds(id);
        }
      }
      List<CompletableFuture<LeaseKeepAliveManyResponse>> answers = new ArrayList<>();
      byCell.forEach((cell, sub) -> {
        UnaryAnswer<LeaseKeepAliveManyResponse> a = new UnaryAnswer<>();
        routes.run(cell, c -> c.lease.keepAliveMany(sub.build(), a));
        answers.add(a.future());
      });
      CallAnswers.reply(CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)), done -> {
        Map<Long, LeaseKeepAliveResponse> results = new HashMap<>(notFound);
        answers.forEach(a -> a.join().getResultsList().forEach(r -> results.put(r.getId(), r)));
        LeaseKeepAliveManyResponse.Builder b = LeaseKeepAliveManyResponse.newBuilder();
        req.getIdsList().forEach(id -> b.addResults(results.get(id)));
        return b.build();
      }, obs);
    });
  }

  @Override
  public void timeToLive(LeaseTimeToLiveRequest req, StreamObserver<LeaseTimeToLiveResponse> obs) {
    CallAnswers.guard(obs, () -> routes.run(routes.cellOfLease(req.getId()), c -> c.lease.timeToLive(req, obs)));
  }

  /** Every cell's leases, cell by cell; {@code applied_index} is cell 0's. */
  @Override
  public void leases(LeaseLeasesRequest req, StreamObserver<LeaseLeasesResponse> obs) {
    List<CompletableFuture<LeaseLeasesResponse>> answers = new ArrayList<>();
    for (int cell = 0; cell < routes.all().size(); cell++) {
      UnaryAnswer<LeaseLeasesResponse> a = new UnaryAnswer<>();
      routes.run(cell, c -> c.lease.leases(req, a));
      answers.add(a.future());
    }
    CallAnswers.reply(CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)), done -> {
      LeaseLeasesResponse.Builder b = answers.get(0).join().toBuilder();
      answers.subList(1, answers.size()).forEach(a -> b.addAllLeases(a.join().getLeasesList()));
      return b.build();
    }, obs);
  }
}
