package io.regent.jepsen.workload;

import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import io.regent.api.v1.CampaignResponse;
import io.regent.api.v1.LeaderKey;
import io.regent.client.LeaseKeeper;
import io.regent.server.placement.Placement;
import io.regent.jepsen.client.ClientProcess;
import io.regent.jepsen.client.Errors;
import io.regent.jepsen.history.Keyword;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one logical client does with names, shared by the workloads: campaign with a bounded wait
 * ({@code :grant}), resign ({@code :resign}), linearizable leader reads ({@code :read}), and the end of
 * its belief in holding a name ({@code :release}, an instant op whose {@code :held [start end]} is the
 * interval, in test nanoseconds, in which it believed it held the name: from the elected response to
 * min(now, its lease's step-down deadline)).
 *
 * <p>A campaign is a blocking {@code Campaign} with a kept-alive lease (granted beforehand, outside
 * the history), bounded by the operation deadline: elected in time is {@code :ok} with the token; a
 * deadline is {@code :info} (the candidacy may still win before the server withdraws it, and the
 * process retires). The non-blocking {@code tryCampaign} is used only with {@code tryCampaign = true}:
 * its "not elected" answer is not final, because the server queues the candidacy at apply and
 * withdraws it asynchronously, after answering; a holder's resign in between elects the lease (and
 * the withdrawal resigns it), and a linearizable read can see that grant although its campaigner was
 * told "not elected". Recorded as {@code :fail} (after revoking the lease), such a history is
 * rightly found not linearizable; that mode exists to show it.
 */
final class Contender {
  private final ClientProcess p;
  private final long ttlMs;
  private final boolean tryCampaign;
  private final Placement placement;
  private LeaseKeeper lease;
  /** The cell {@link #lease} was granted in. */
  private int leaseCell;
  private String name;
  private LeaderKey key;
  private long since;

  Contender(ClientProcess p, long ttlMs, boolean tryCampaign, Placement placement) {
    this.p = p;
    this.ttlMs = ttlMs;
    this.tryCampaign = tryCampaign;
    this.placement = placement;
  }

  /** True while it believes it holds a name. */
  boolean holding() {
    return key != null;
  }

  /** True while holding and the lease's deadline has not passed. */
  boolean valid() {
    return key != null && lease.isValid();
  }

  /** The fencing token held (only while holding). */
  long token() {
    return key.getToken();
  }

  /** Steps down if the lease can no longer be vouched for; drops a dead lease. */
  void checkLease() {
    if (lease == null || lease.isValid()) {
      return;
    }
    if (key != null) {
      release("step-down");
      key = null;
    }
    lease.stop();
    lease = null;
  }

  /** A {@code :grant} attempt on {@code n}. */
  void campaign(String n) {
    if (!ensureLease(n)) {
      return;
    }
    LeaseKeeper l = lease;
    ByteString value = ByteString.copyFromUtf8(p.name());
    ClientProcess.Invocation inv = p.invoke("grant", n, null);
    CampaignResponse r;
    try {
      r = tryCampaign ? p.call(() -> p.client().elections().tryCampaign(n, l.leaseId(), value))
          : CampaignResponse.newBuilder().setElected(true)
              .setLeader(p.call(() -> p.client().elections().campaign(n, l.leaseId(), value))).build();
    } catch (StatusRuntimeException e) {
      if (Errors.definiteFailure(e)) {
        inv.fail(Errors.describe(e));
      } else {
        inv.info(Errors.describe(e));
      }
      dropLease();
      return;
    }
    if (r.getElected()) {
      key = r.getLeader();
      name = n;
      since = System.nanoTime();
      inv.ok(key.getToken(), Map.of("lease", l.leaseId()));
      return;
    }
    String holder = r.hasLeader() ? " (held with token " + r.getLeader().getToken() + ")" : "";
    lease = null;
    try {
      p.call(() -> {
        l.revoke();
        return null;
      });
      inv.fail("not elected" + holder);
    } catch (StatusRuntimeException e) {
      inv.info("not elected" + holder + ", and revoking the queued lease failed: " + Errors.describe(e));
    }
  }

  /** Resigns the name held: ends the belief, then a {@code :resign} op. */
  void resign() {
    release("resign");
    LeaderKey k = key;
    key = null;
    ClientProcess.Invocation inv = p.invoke("resign", k.getName(), k.getToken());
    try {
      p.call(() -> {
        p.client().elections().resign(k);
        return null;
      });
      inv.ok(k.getToken());
    } catch (StatusRuntimeException e) {
      if (Errors.definiteFailure(e)) {
        inv.fail(Errors.describe(e));
      } else {
        inv.info(Errors.describe(e));
      }
    }
  }

  /** A linearizable {@code :read} of {@code n}'s holder: its token, or nil. */
  void read(String n) {
    ClientProcess.Invocation inv = p.invoke("read", n, null);
    try {
      Optional<LeaderKey> k = p.call(() -> p.client().elections().leader(n));
      inv.ok(k.map(LeaderKey::getToken).orElse(null));
    } catch (StatusRuntimeException e) {
      if (Errors.timeout(e)) {
        inv.info(Errors.describe(e));
      } else {
        inv.fail(Errors.describe(e));
      }
    }
  }

  /** Ends the process: the belief ends now; at the end of a test (not retired) it also resigns. */
  void close() {
    if (key != null) {
      if (p.retired()) {
        release("retired");
        key = null;
      } else {
        resign();
      }
    }
    dropLease();
  }

  /** A live lease that can hold {@code n}: the one held, or (not holding) a new one in {@code n}'s cell. */
  private boolean ensureLease(String n) {
    int cell = placement.cellOf(n);
    if (lease != null && lease.isValid() && leaseCell == cell) {
      return true;
    }
    dropLease();
    try {
      // The shipped keeper, its renewals passing through the client's pause gate (the client-pause nemesis). On
      // several cells a lease holds names of its own cell only (docs/architecture.md §14): granted in n's cell.
      LeaseKeeper.Options options = LeaseKeeper.options().pauseHook(p.gate()::await);
      lease = p.call(() -> placement.cells() == 1 ? LeaseKeeper.grant(p.client(), ttlMs, reason -> { }, options)
          : LeaseKeeper.grant(p.client(), ttlMs, n, reason -> { }, options));
      leaseCell = cell;
      return true;
    } catch (StatusRuntimeException e) {
      return false;
    }
  }

  private void dropLease() {
    if (lease != null) {
      lease.stop(); // not revoked: an unrenewed lease expires on the server, as a crashed client's would
      lease = null;
    }
  }

  /** Records the end of the belief in holding the current name. */
  private void release(String reason) {
    // The belief ends now, or at the keeper's step-down deadline if that came first.
    long now = System.nanoTime();
    long deadline = lease.deadlineNanos();
    long end = now - deadline < 0 ? now : deadline;
    List<Object> held = null;
    if (end - since > 0) {
      held = new ArrayList<>(List.of(p.recorder().relative(since), p.recorder().relative(end)));
    }
    Map<String, Object> extra = new java.util.LinkedHashMap<>();
    extra.put("held", held);
    extra.put("reason", Keyword.of(reason));
    p.instant("release", name, key.getToken(), extra);
  }
}
