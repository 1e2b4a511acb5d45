package io.regent.server.api;

import io.regent.api.v1.CampaignRequest;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.ElectionGrpc;
import java.util.concurrent.CompletableFuture;

/** A raw Election/Campaign call for tests that keep many campaigns waiting at once (limits, lanes). */
final class AsyncCampaign {
  private AsyncCampaign() {
  }

  /** Sends a campaign for {@code name} with {@code lease}; the future ends with its answer or its status. */
  static CompletableFuture<CampaignResponse> campaign(ElectionGrpc.ElectionStub stub, String name, long lease) {
    FirstReply<CampaignResponse> reply = new FirstReply<>();
    stub.campaign(CampaignRequest.newBuilder().setName(name).setLease(lease).build(), reply);
    return reply.future();
  }
}
