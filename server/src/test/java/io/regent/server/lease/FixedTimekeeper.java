package io.regent.server.lease;

import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.replica.LeaseTimekeeper;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * A leader clock for tests: every confirmed or queried lease measures {@code measured} (ms, or -1 / -2 for
 * "not confirmed" / "expiring"), every lease is checkpointed as {@code checkpointed} says, nothing else is timed.
 */
public final class FixedTimekeeper implements LeaseTimekeeper {
  private final LongSupplier measured;
  private final BooleanSupplier checkpointed;

  public FixedTimekeeper(LongSupplier measured, BooleanSupplier checkpointed) {
    this.measured = measured;
    this.checkpointed = checkpointed;
  }

  @Override
  public void onLeaderReady(long term, List<LeaseRecord> leases, List<NameRecord> lockDelayed) {
  }

  @Override
  public void onNotLeader(long term) {
  }

  @Override
  public void onGranted(LeaseRecord lease) {
  }

  @Override
  public void onEnded(List<Long> leaseIds) {
  }

  @Override
  public void onLockDelay(NameRecord name) {
  }

  @Override
  public long[] confirm(long term, List<LeaseRecord> renew, List<LeaseRecord> query) {
    long[] out = new long[renew.size() + query.size()];
    Arrays.fill(out, measured.getAsLong());
    return out;
  }

  @Override
  public boolean checkpointed(long leaseId) {
    return checkpointed.getAsBoolean();
  }
}
