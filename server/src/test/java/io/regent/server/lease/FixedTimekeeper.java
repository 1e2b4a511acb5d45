package io.regent.server.lease;

import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.replica.LeaseTimekeeper;
import io.regent.statemachine.replica.LeaseVerdict;
import java.util.Collections;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A leader clock for tests: every confirmed or queried lease gets the verdict {@code verdict} gives, every lease
 * is checkpointed as {@code checkpointed} says, nothing else is timed.
 */
public final class FixedTimekeeper implements LeaseTimekeeper {
  private final Supplier<LeaseVerdict> verdict;
  private final BooleanSupplier checkpointed;

  public FixedTimekeeper(Supplier<LeaseVerdict> verdict, BooleanSupplier checkpointed) {
    this.verdict = verdict;
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
  public List<LeaseVerdict> confirm(long term, List<LeaseRecord> renew, List<LeaseRecord> query) {
    return Collections.nCopies(renew.size() + query.size(), verdict.get());
  }

  @Override
  public boolean checkpointed(long leaseId) {
    return checkpointed.getAsBoolean();
  }
}
