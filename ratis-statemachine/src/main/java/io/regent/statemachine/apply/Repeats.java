package io.regent.statemachine.apply;

import io.regent.statemachine.proto.LogEntryOrBuilder;

/**
 * Which encoded entries a proposer may send a second copy of while the first may still commit: those whose every
 * copy after the first changes nothing, whatever applied in between (docs/api.md "Request ids", "Attempts"). A
 * proposer that re-sends anything else may apply it twice.
 */
public final class Repeats {
  private Repeats() {
  }

  /**
   * Whether a second copy of {@code entry} (as {@link EntryCodec#encode} stamped it) changes nothing:
   * <ul>
   *   <li>an operation with a request id, of version 3 or later, but for a campaign with a lease (answered from its
   *       record, {@link RequestRule});</li>
   *   <li>an operation naming an attempt, of version 4 or later: a blocking campaign applies once per attempt and
   *       its cleanup closes the attempt ({@link AttemptRule});</li>
   *   <li>Expire (lease ids are never reused) and EndLockDelay (aimed at one delay by its start index);</li>
   *   <li>a Confirm that renews no lease (it only reads);</li>
   *   <li>a batch whose every operation is one of these.</li>
   * </ul>
   * Not: lease checkpoints and Confirm renewals (a late copy would restore an older remaining TTL, or renew a lease
   * again later than its keepalive), member records (a late copy would restore an older record), and anything
   * written below version 3.
   */
  public static boolean harmless(LogEntryOrBuilder entry) {
    if (entry.hasBatch()) {
      return entry.getBatch().getEntriesList().stream().allMatch(Repeats::harmless);
    }
    boolean leaseCampaign = entry.hasCampaign() && entry.getCampaign().getLeaseId() != 0;
    if (entry.getVersion() >= EntryCodec.REQUEST_ID_VERSION && !entry.getRequestId().isEmpty() && !leaseCampaign) {
      return true;
    }
    if (entry.getVersion() >= EntryCodec.ATTEMPT_ID_VERSION && !AttemptRule.attempt(entry).isEmpty()) {
      return true;
    }
    return switch (entry.getCommandCase()) {
      case EXPIRE, END_LOCK_DELAY -> true;
      case CONFIRM -> entry.getConfirm().getRenewLeaseIdsCount() == 0;
      default -> false;
    };
  }
}
