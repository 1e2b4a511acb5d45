package io.regent.client;

import com.google.protobuf.ByteString;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.CampaignAllRequest;
import io.regent.api.v1.CampaignRequest;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.FreshTokenRequest;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaderRequest;
import io.regent.api.v1.LeaderResponse;
import io.regent.api.v1.ObserveRequest;
import io.regent.api.v1.ObserveResponse;
import io.regent.api.v1.ProclaimRequest;
import io.regent.api.v1.ResignRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The {@code regent.v1.Election} service of a {@link RegentClient} ({@link RegentClient#elections()}): campaign
 * for a name with a lease, proclaim, resign, take a fresh fencing token, read and observe the holder. Which of
 * these calls are re-sent after a timeout is {@link Calls}'s rule. Errors are
 * {@link io.grpc.StatusRuntimeException}s with the codes of docs/architecture.md §7. Thread-safe.
 */
public final class Elections {
  private final Calls calls;
  private final Endpoints endpoints;
  private final long campaignTimeoutMs;

  /** @param campaignTimeoutMs {@link RegentClientBuilder#campaignTimeout}, ms */
  Elections(Calls calls, Endpoints endpoints, long campaignTimeoutMs) {
    this.calls = calls;
    this.endpoints = endpoints;
    this.campaignTimeoutMs = campaignTimeoutMs;
  }

  /**
   * Campaigns for {@code name} with a lease and blocks until elected, at most
   * {@link RegentClientBuilder#campaignTimeout} (then DEADLINE_EXCEEDED, and the server withdraws the
   * candidacy). NOT_FOUND when the lease ends first. Retrying keeps the candidate's place (Campaign is
   * idempotent per name and lease), so a campaign whose node becomes unreachable goes on at the next endpoint.
   */
  public LeaderKey campaign(String name, long leaseId, ByteString value) {
    return campaign(name, leaseId, value, 0);
  }

  /**
   * Like {@link #campaign(String, long, ByteString)}, asking for a lock-delay of {@code lockDelayMs} (0 to
   * 3 600 000 ms): should this lease expire while holding the name, nobody is granted it for that long.
   */
  public LeaderKey campaign(String name, long leaseId, ByteString value, long lockDelayMs) {
    return campaign(name, leaseId, value, lockDelayMs, Duration.ofMillis(campaignTimeoutMs));
  }

  /**
   * Like {@link #campaign(String, long, ByteString, long)}, waiting at most {@code timeout} to be elected:
   * DEADLINE_EXCEEDED then, and the candidacy is withdrawn.
   */
  public LeaderKey campaign(String name, long leaseId, ByteString value, long lockDelayMs, Duration timeout) {
    // Each send is an attempt of its own on the server (docs/api.md "Attempts"); the id changes nothing there.
    CampaignRequest req = CampaignRequest.newBuilder().setName(name).setLease(leaseId).setValue(value)
        .setLockDelayMs(lockDelayMs).setRequestId(RequestIds.next()).build();
    // One attempt may take the whole wait: a campaign is not moved on for taking long, only for a dead node.
    return calls.call(timeout.toMillis(), false, true, ch -> ElectionGrpc.newBlockingStub(ch)
        .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS).campaign(req)).getLeader();
  }

  /**
   * Takes every one of {@code names} or none, in one entry, all with one fencing token; blocks while any is
   * held (queued once, as one candidate for all), at most {@link RegentClientBuilder#campaignTimeout}. Returns
   * one key per name, in order. Errors as {@link #campaign}; FAILED_PRECONDITION when the lease already holds or
   * waits for one of them on its own.
   */
  public List<LeaderKey> campaignAll(List<String> names, long leaseId, ByteString value) {
    return campaignAll(names, leaseId, value, Duration.ofMillis(campaignTimeoutMs));
  }

  /**
   * Like {@link #campaignAll(List, long, ByteString)}, waiting at most {@code timeout} to be elected:
   * DEADLINE_EXCEEDED then, and the candidacy is withdrawn. Like {@link #campaign}, one send may take the whole
   * wait: it is moved on from a dead node only, never for taking long.
   */
  public List<LeaderKey> campaignAll(List<String> names, long leaseId, ByteString value, Duration timeout) {
    CampaignAllRequest req = CampaignAllRequest.newBuilder().addAllNames(names).setLease(leaseId).setValue(value)
        .setRequestId(RequestIds.next()).build();
    return calls.call(timeout.toMillis(), false, true, ch -> ElectionGrpc.newBlockingStub(ch)
        .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS).campaignAll(req)).getLeadersList();
  }

  /**
   * Campaigns for {@code name} with a lease of {@code ttlMs} that the same log entry grants (an election in two
   * entries with {@link #resign(LeaderKey, boolean)}), and returns at once: elected (the leader key holds the new
   * lease), or queued as a candidate with the new lease in {@code lease}. Keep that lease alive from the moment
   * this call was sent ({@link LeaseKeeper#adopt}); campaign again with it to wait for the name.
   * INVALID_ARGUMENT (TTL, name, value, lock-delay), RESOURCE_EXHAUSTED (server limits). Re-sent after
   * UNAVAILABLE and DEADLINE_EXCEEDED with one request id: a re-send of a campaign that applied gets its answer
   * and its lease, never a second lease (docs/api.md "Request ids").
   */
  public CampaignResponse campaignWithTtl(String name, long ttlMs, ByteString value, long lockDelayMs) {
    return campaignWithTtl(name, ttlMs, value, lockDelayMs, RequestIds.next());
  }

  /**
   * {@link #campaignWithTtl(String, long, ByteString, long)} under {@code requestId} ({@link RequestIds#next}), for a
   * caller that sends the same logical campaign again itself after this call gave up (UNAVAILABLE: no node answered
   * within the call timeout): with the same id, a campaign that did apply answers with its first answer and lease.
   * INVALID_ARGUMENT also for an id outside 1..64 characters of {@code [A-Za-z0-9._:-]} (docs/api.md "Request ids").
   */
  public CampaignResponse campaignWithTtl(String name, long ttlMs, ByteString value, long lockDelayMs,
                                          String requestId) {
    CampaignRequest req = CampaignRequest.newBuilder().setName(name).setTtlMs(ttlMs).setValue(value)
        .setLockDelayMs(lockDelayMs).setRequestId(requestId).build();
    return calls.call(ch -> ElectionGrpc.newBlockingStub(ch)
        .withDeadlineAfter(calls.callTimeoutMs(), TimeUnit.MILLISECONDS).campaign(req));
  }

  /** Tries once: elected at once, or not (then the response carries the current holder, if any). */
  public CampaignResponse tryCampaign(String name, long leaseId, ByteString value) {
    CampaignRequest req = CampaignRequest.newBuilder().setName(name).setLease(leaseId).setValue(value)
        .setNoWait(true).setRequestId(RequestIds.next()).build();
    return calls.call(ch -> ElectionGrpc.newBlockingStub(ch)
        .withDeadlineAfter(calls.callTimeoutMs(), TimeUnit.MILLISECONDS).campaign(req));
  }

  /**
   * Replaces the holder's value. FAILED_PRECONDITION when {@code key} no longer holds the name (a re-send after a
   * lost answer gets the first answer, by its request id).
   */
  public LeaderKey proclaim(LeaderKey key, ByteString value) {
    ProclaimRequest req = ProclaimRequest.newBuilder().setLeader(key).setValue(value)
        .setRequestId(RequestIds.next()).build();
    return calls.call(ch -> ElectionGrpc.newBlockingStub(ch)
        .withDeadlineAfter(calls.callTimeoutMs(), TimeUnit.MILLISECONDS).proclaim(req)).getLeader();
  }

  /** Gives the name up. FAILED_PRECONDITION when {@code key} no longer holds it. */
  public void resign(LeaderKey key) {
    resign(key, false);
  }

  /**
   * Gives the name up and, with {@code revokeLease}, revokes the holder's lease in the same log entry (freeing
   * every other name it holds). FAILED_PRECONDITION when {@code key} no longer holds the name: nothing changes
   * (a re-send after a lost answer gets the first answer, by its request id).
   */
  public void resign(LeaderKey key, boolean revokeLease) {
    ResignRequest req = ResignRequest.newBuilder().setLeader(key).setRevokeLease(revokeLease)
        .setRequestId(RequestIds.next()).build();
    calls.call(ch -> ElectionGrpc.newBlockingStub(ch).withDeadlineAfter(calls.callTimeoutMs(), TimeUnit.MILLISECONDS)
        .resign(req));
  }

  /**
   * A new, larger fencing token for the current holder. FAILED_PRECONDITION when not the holder. Re-sent after
   * UNAVAILABLE and DEADLINE_EXCEEDED with one request id: a re-send of a call that applied gets the token it
   * took, not a second one (docs/api.md "Request ids").
   */
  public LeaderKey freshToken(LeaderKey key) {
    FreshTokenRequest req = FreshTokenRequest.newBuilder().setLeader(key).setRequestId(RequestIds.next()).build();
    return calls.call(ch -> ElectionGrpc.newBlockingStub(ch)
        .withDeadlineAfter(calls.callTimeoutMs(), TimeUnit.MILLISECONDS).freshToken(req)).getLeader();
  }

  /** The current holder of {@code name}, read linearizably; empty when none. */
  public Optional<LeaderKey> leader(String name) {
    return leader(name, false).map(LeaderResponse::getLeader);
  }

  /**
   * The current holder of {@code name} with the log index the answer reflects ({@code applied_index}):
   * linearizable, or with {@code serializable} the answering node's own state, which may be stale by as much
   * as that index is behind the cluster's (docs/architecture.md §4).
   *
   * @return empty when the name has no holder
   */
  public Optional<LeaderResponse> leader(String name, boolean serializable) {
    long timeoutMs = calls.callTimeoutMs();
    try {
      return Optional.of(calls.call(timeoutMs, true, !serializable, ch -> ElectionGrpc.newBlockingStub(ch)
          .withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS)
          .leader(LeaderRequest.newBuilder().setName(name).setSerializable(serializable).build())));
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
    return observe(name, afterIndex, 0, observer);
  }

  /**
   * As {@link #observe(String, long, StreamObserver)}, resuming after the event of entry {@code afterIndex} whose
   * {@link ObserveResponse#getOrdinal ordinal} is {@code afterOrdinal} (0: after the whole entry), so that the
   * later events of one entry that changed the name more than once still come (docs/api.md, Observe).
   */
  public Runnable observe(String name, long afterIndex, int afterOrdinal, StreamObserver<ObserveResponse> observer) {
    var ctx = Context.current().withCancellation();
    ctx.run(() -> ElectionGrpc.newStub(endpoints.currentChannel()).observe(ObserveRequest.newBuilder()
        .setName(name).setAfterIndex(afterIndex).setAfterOrdinal(afterOrdinal).build(), observer));
    return () -> ctx.cancel(null);
  }
}
