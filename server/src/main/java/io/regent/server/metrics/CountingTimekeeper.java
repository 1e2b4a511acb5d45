package io.regent.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.ratis.LeaseTimekeeper;
import java.util.List;

/**
 * A {@link LeaseTimekeeper} that counts applied grants and lease ends, then hands every call to the real
 * one. It runs on the apply thread, like the one it wraps, and only increments counters.
 */
final class CountingTimekeeper implements LeaseTimekeeper {
  private final LeaseTimekeeper delegate;
  private final Counter grants;
  private final Counter ends;

  CountingTimekeeper(LeaseTimekeeper delegate, Counter grants, Counter ends) {
    this.delegate = delegate;
    this.grants = grants;
    this.ends = ends;
  }

  @Override
  public void onLeaderReady(long term, List<LeaseRecord> leases, List<NameRecord> lockDelayed) {
    delegate.onLeaderReady(term, leases, lockDelayed);
  }

  @Override
  public void onNotLeader() {
    delegate.onNotLeader();
  }

  @Override
  public void onGranted(LeaseRecord lease) {
    grants.increment();
    delegate.onGranted(lease);
  }

  @Override
  public void onEnded(List<Long> leaseIds) {
    ends.increment(leaseIds.size());
    delegate.onEnded(leaseIds);
  }

  @Override
  public void onLockDelay(NameRecord name) {
    delegate.onLockDelay(name);
  }

  @Override
  public long[] confirm(long term, List<LeaseRecord> renew, List<LeaseRecord> query) {
    return delegate.confirm(term, renew, query);
  }
}
