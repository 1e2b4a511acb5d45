package io.regent.client;

import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.LeaderKey;
import java.util.function.Consumer;

/**
 * Leader election on a name: campaign with a kept-alive lease, then act as leader with the returned
 * fencing token until told to step down (etcd's concurrency.Election, with Chubby-style sequencers).
 */
public final class LeaderElection {
  private final RegentClient client;

  /** @param client the cluster to campaign on */
  public LeaderElection(RegentClient client) {
    this.client = client;
  }

  /**
   * Campaigns for {@code name} with a lease of {@code ttlMs} granted in the same log entry, and blocks until
   * elected (campaigning again with that kept-alive lease when the name was held).
   *
   * @param onStepDown told why, once, when leadership can no longer be vouched for (lease lost, renewal
   *     failing for 2/3 ttl); the application must stop acting as leader at once
   * @throws StatusRuntimeException INVALID_ARGUMENT (name, value, TTL), NOT_FOUND (lease ended while
   *     waiting), UNAVAILABLE (no quorum)
   */
  public Leadership campaign(String name, ByteString value, long ttlMs, Consumer<String> onStepDown) {
    long sent = System.nanoTime();
    CampaignResponse first = client.elections().campaignWithTtl(name, ttlMs, value, 0);
    LeaseKeeper keeper = LeaseKeeper.adopt(client, first.getLease(), ttlMs, sent, onStepDown);
    try {
      LeaderKey key = first.getElected() ? first.getLeader() : client.elections().campaign(name, keeper.leaseId(),
          value);
      return new Leadership(client, keeper, key);
    } catch (RuntimeException e) {
      keeper.close();
      throw e;
    }
  }

  /** One term of leadership: its key (name, value, fencing token, lease) and the lease that backs it. */
  public static final class Leadership implements AutoCloseable {
    private final RegentClient client;
    private final LeaseKeeper keeper;
    private volatile LeaderKey key;

    Leadership(RegentClient client, LeaseKeeper keeper, LeaderKey key) {
      this.client = client;
      this.keeper = keeper;
      this.key = key;
    }

    /** The leader key: name, value, fencing token and lease id. */
    public LeaderKey key() {
      return key;
    }

    /** The fencing token to attach to every write at the resource. */
    public long token() {
      return key.getToken();
    }

    /** Whether this process may still act as leader (see {@link LeaseKeeper#isValid}). */
    public boolean isValid() {
      return keeper.isValid();
    }

    /** The lease keeper backing this leadership. */
    public LeaseKeeper lease() {
      return keeper;
    }

    /** Replaces the published value; FAILED_PRECONDITION when no longer leader. */
    public void proclaim(ByteString value) {
      key = client.elections().proclaim(key, value);
    }

    /** Takes a new, larger fencing token (for strict fencing); FAILED_PRECONDITION when no longer leader. */
    public long freshToken() {
      key = client.elections().freshToken(key);
      return key.getToken();
    }

    /** Resigns and revokes the lease in one log entry; when that fails, revokes the lease (best effort). */
    @Override
    public void close() {
      try {
        client.elections().resign(key, true);
        keeper.forget();
      } catch (StatusRuntimeException e) {
        // Not leader any more, or no quorum: revoking the lease frees the name either way.
        keeper.close();
      }
    }
  }
}
