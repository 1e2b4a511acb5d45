package io.regent.statemachine.support;

import com.google.protobuf.ByteString;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.Checkpoint;
import io.regent.statemachine.proto.EndLockDelay;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.Expire;
import io.regent.statemachine.proto.FreshToken;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LeaseCheckpoint;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.Proclaim;
import io.regent.statemachine.proto.Resign;
import io.regent.statemachine.proto.Revoke;
import io.regent.statemachine.proto.Withdraw;
import java.util.Arrays;

/**
 * Log entries as the proposer writes them: stamped with {@link EntryCodec#VERSION} and passed through
 * encode/decode, the path every entry takes through the Raft log.
 */
public final class Entries {
  private Entries() {
  }

  public static LogEntry grant(long ttlMs) {
    return logged(LogEntry.newBuilder().setGrant(Grant.newBuilder().setTtlMs(ttlMs)));
  }

  public static LogEntry revoke(long leaseId) {
    return logged(LogEntry.newBuilder().setRevoke(Revoke.newBuilder().setLeaseId(leaseId)));
  }

  public static LogEntry expire(long proposerTerm, long... leaseIds) {
    Expire.Builder e = Expire.newBuilder().setProposerTerm(proposerTerm);
    Arrays.stream(leaseIds).forEach(e::addLeaseIds);
    return logged(LogEntry.newBuilder().setExpire(e));
  }

  public static LogEntry campaign(String name, long leaseId, String value) {
    return logged(LogEntry.newBuilder().setCampaign(
        Campaign.newBuilder().setName(name).setLeaseId(leaseId).setValue(ByteString.copyFromUtf8(value))));
  }

  public static LogEntry campaign(String name, long leaseId, String value, long lockDelayMs) {
    return logged(LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName(name).setLeaseId(leaseId)
        .setValue(ByteString.copyFromUtf8(value)).setLockDelayMs(lockDelayMs)));
  }

  /** A campaign that grants its own lease of {@code ttlMs} (limit {@code maxLeases}, 0: none). */
  public static LogEntry campaignWithTtl(String name, long ttlMs, String value, long maxLeases, boolean noWait) {
    return logged(LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName(name).setTtlMs(ttlMs)
        .setMaxLeases(maxLeases).setNoWait(noWait).setValue(ByteString.copyFromUtf8(value))));
  }

  public static LogEntry tryCampaign(String name, long leaseId, String value) {
    return logged(LogEntry.newBuilder().setCampaign(Campaign.newBuilder().setName(name).setLeaseId(leaseId)
        .setValue(ByteString.copyFromUtf8(value)).setNoWait(true)));
  }

  /** The end of the lock-delay of {@code name} that the entry at {@code delayStartIndex} started. */
  public static LogEntry endLockDelay(String name, long proposerTerm, long delayStartIndex) {
    return logged(LogEntry.newBuilder().setEndLockDelay(EndLockDelay.newBuilder().setName(name)
        .setProposerTerm(proposerTerm).setDelayStartIndex(delayStartIndex)));
  }

  /** A checkpoint of one lease: {@code remainingMs} measured when its renewed index was {@code renewedIndex}. */
  public static LogEntry checkpoint(long proposerTerm, long leaseId, long remainingMs, long renewedIndex) {
    return logged(LogEntry.newBuilder().setLeaseCheckpoint(LeaseCheckpoint.newBuilder().setProposerTerm(proposerTerm)
        .addCheckpoints(Checkpoint.newBuilder().setLeaseId(leaseId).setRemainingMs(remainingMs)
            .setRenewedIndex(renewedIndex))));
  }

  public static LogEntry proclaim(String name, long token, String value) {
    return logged(LogEntry.newBuilder().setProclaim(
        Proclaim.newBuilder().setName(name).setToken(token).setValue(ByteString.copyFromUtf8(value))));
  }

  public static LogEntry resign(String name, long token) {
    return logged(LogEntry.newBuilder().setResign(Resign.newBuilder().setName(name).setToken(token)));
  }

  /** A Resign that also revokes the holder's lease. */
  public static LogEntry resignAndRevoke(String name, long token) {
    return logged(LogEntry.newBuilder().setResign(Resign.newBuilder().setName(name).setToken(token)
        .setRevokeLease(true)));
  }

  public static LogEntry withdraw(String name, long leaseId) {
    return logged(LogEntry.newBuilder().setWithdraw(Withdraw.newBuilder().setName(name).setLeaseId(leaseId)));
  }

  public static LogEntry freshToken(String name, long token) {
    return logged(LogEntry.newBuilder().setFreshToken(FreshToken.newBuilder().setName(name).setToken(token)));
  }

  public static LogEntry confirm(long... renewLeaseIds) {
    Confirm.Builder c = Confirm.newBuilder();
    Arrays.stream(renewLeaseIds).forEach(c::addRenewLeaseIds);
    return logged(LogEntry.newBuilder().setConfirm(c));
  }

  public static LogEntry confirmNames(String... names) {
    return logged(LogEntry.newBuilder().setConfirm(Confirm.newBuilder().addAllQueryNames(Arrays.asList(names))));
  }

  public static LogEntry groupJoin(String group, String member, long leaseId, int partitions) {
    return logged(LogEntry.newBuilder().setGroupJoin(io.regent.statemachine.proto.GroupJoin.newBuilder()
        .setGroup(group).setMemberId(member).setLeaseId(leaseId).setPartitions(partitions)));
  }

  /** One batch entry holding {@code ops} in order (docs/architecture.md §2.6), as the log carries it. */
  public static LogEntry batch(LogEntry... ops) {
    io.regent.statemachine.proto.Batch.Builder b = io.regent.statemachine.proto.Batch.newBuilder();
    Arrays.stream(ops).forEach(b::addEntries);
    return logged(LogEntry.newBuilder().setBatch(b));
  }

  /** {@code entry} encoded and decoded, as every entry passes through the Raft log. */
  public static LogEntry logged(LogEntry.Builder entry) {
    return EntryCodec.decode(EntryCodec.encode(entry, EntryCodec.MAX_VERSION));
  }
}
