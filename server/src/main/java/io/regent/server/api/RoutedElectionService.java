package io.regent.server.api;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.CampaignAllRequest;
import io.regent.api.v1.CampaignAllResponse;
import io.regent.api.v1.CampaignRequest;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.FreshTokenRequest;
import io.regent.api.v1.FreshTokenResponse;
import io.regent.api.v1.LeaderRequest;
import io.regent.api.v1.LeaderResponse;
import io.regent.api.v1.ObserveRequest;
import io.regent.api.v1.ObserveResponse;
import io.regent.api.v1.ProclaimRequest;
import io.regent.api.v1.ProclaimResponse;
import io.regent.api.v1.ResignRequest;
import io.regent.api.v1.ResignResponse;
import io.regent.server.placement.Placement;
import java.util.TreeSet;

/**
 * {@code regent.v1.Election} over several cells: each call goes to the cell of its name, whose election service
 * answers it as a node without cells would (docs/architecture.md §14). A campaign's lease must be of the name's
 * cell; a CampaignAll's names must share one cell (as Redis Cluster refuses a command over keys of several slots).
 */
final class RoutedElectionService extends ElectionGrpc.ElectionImplBase {
  private final CellRoutes routes;

  RoutedElectionService(CellRoutes routes) {
    this.routes = routes;
  }

  @Override
  public void campaign(CampaignRequest req, StreamObserver<CampaignResponse> obs) {
    CallAnswers.guard(obs, () -> {
      routes.checkLeaseHolds(req.getLease(), req.getName());
      routes.run(routes.cellOfName(req.getName()), c -> c.election.campaign(req, obs));
    });
  }

  /** INVALID_ARGUMENT when the names are in several cells; the message names them and how to co-locate them. */
  @Override
  public void campaignAll(CampaignAllRequest req, StreamObserver<CampaignAllResponse> obs) {
    CallAnswers.guard(obs, () -> {
      if (req.getNamesCount() == 0) { // the cell's service refuses it with its own message
        routes.run(0, c -> c.election.campaignAll(req, obs));
        return;
      }
      TreeSet<Integer> cells = new TreeSet<>();
      TreeSet<String> tenants = new TreeSet<>();
      for (String name : req.getNamesList()) {
        cells.add(routes.cellOfName(name));
        tenants.add(Placement.tenantOf(name));
      }
      if (cells.size() > 1) {
        throw Status.INVALID_ARGUMENT.withDescription("the names are in cells " + cells + " (tenants " + tenants
            + "): CampaignAll takes names of one cell; give them one tenant, or one {tag} such as '{"
            + tenants.first() + "}/…' (docs/architecture.md §14)").asRuntimeException();
      }
      String first = req.getNames(0);
      routes.checkLeaseHolds(req.getLease(), first);
      routes.run(cells.first(), c -> c.election.campaignAll(req, obs));
    });
  }

  @Override
  public void proclaim(ProclaimRequest req, StreamObserver<ProclaimResponse> obs) {
    CallAnswers.guard(obs, () -> routes.run(routes.cellOfName(req.getLeader().getName()),
        c -> c.election.proclaim(req, obs)));
  }

  @Override
  public void resign(ResignRequest req, StreamObserver<ResignResponse> obs) {
    CallAnswers.guard(obs, () -> routes.run(routes.cellOfName(req.getLeader().getName()),
        c -> c.election.resign(req, obs)));
  }

  @Override
  public void freshToken(FreshTokenRequest req, StreamObserver<FreshTokenResponse> obs) {
    CallAnswers.guard(obs, () -> routes.run(routes.cellOfName(req.getLeader().getName()),
        c -> c.election.freshToken(req, obs)));
  }

  @Override
  public void leader(LeaderRequest req, StreamObserver<LeaderResponse> obs) {
    CallAnswers.guard(obs, () -> routes.run(routes.cellOfName(req.getName()), c -> c.election.leader(req, obs)));
  }

  /** Observes the name in its cell: {@code after_index} is an index of that cell's log. */
  @Override
  public void observe(ObserveRequest req, StreamObserver<ObserveResponse> obs) {
    CallAnswers.guard(obs, () -> routes.run(routes.cellOfName(req.getName()), c -> c.election.observe(req, obs)));
  }
}
