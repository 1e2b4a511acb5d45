package io.regent.statemachine.apply;

import io.regent.statemachine.limits.Limits;
import static io.regent.statemachine.support.Entries.campaign;
import static io.regent.statemachine.support.Entries.expire;
import static io.regent.statemachine.support.Entries.freshToken;
import static io.regent.statemachine.support.Entries.grant;
import static io.regent.statemachine.support.Entries.proclaim;
import static io.regent.statemachine.support.Entries.resign;
import static io.regent.statemachine.support.Entries.revoke;
import static io.regent.statemachine.support.Replica.TERM;
import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.proto.Code;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.support.FreshReplica;
import io.regent.statemachine.support.Replica;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Entries that apply refuses: a result code, no events, and no change but the recorded applied index. */
@ExtendWith(FreshReplica.class)
class ApplierRefusalTest {
  private static final String NAME = "leader/db";

  private Replica replica;

  @BeforeEach
  void open(Replica fresh) {
    replica = fresh;
  }

  @ParameterizedTest
  @ValueSource(longs = {0, -1, Limits.MAX_TTL_MS + 1})
  void grantRejectsTtlOutOfRange(long ttlMs) {
    // Rule: a TTL outside (0, 3_600_000] ms is INVALID_ARGUMENT and grants nothing.
    replica.grantLease();
    assertThat(assertRefused(grant(ttlMs), Code.INVALID_ARGUMENT).grants()).isEmpty();
  }

  @Test
  void expireProposedInAnotherTermChangesNothing() {
    // Rule: an Expire applies only when its proposer's term is the term of the entry itself.
    long a = replica.grantLease();
    replica.apply(campaign(NAME, a, "a"));
    String before = replica.tables();
    ApplyOutcome out = replica.applyAt(replica.nextIndex(), TERM + 1, expire(TERM, a));
    assertThat(out.result().getCode()).isEqualTo(Code.FAILED_PRECONDITION);
    assertThat(out.events()).isEmpty();
    assertThat(out.ended()).isEmpty();
    assertThat(replica.tables()).isEqualTo(before);
  }

  @Test
  void wrongTokenIsRefused() {
    // Rule: Proclaim, Resign and FreshToken need the holder's current token, else FAILED_PRECONDITION.
    long a = replica.grantLease();
    long stale = replica.apply(campaign(NAME, a, "a")).result().getName().getHolder().getToken();
    long current = replica.apply(freshToken(NAME, stale)).result().getName().getHolder().getToken();
    for (long wrong : new long[] {stale, current + 1, 0}) {
      assertRefused(proclaim(NAME, wrong, "x"), Code.FAILED_PRECONDITION);
      assertRefused(resign(NAME, wrong), Code.FAILED_PRECONDITION);
      assertRefused(freshToken(NAME, wrong), Code.FAILED_PRECONDITION);
    }
    assertRefused(resign("free/name", 0), Code.FAILED_PRECONDITION);
  }

  @Test
  void campaignWithUnknownLeaseIsNotFound() {
    // Rule: a Campaign by a lease that does not exist (never granted, or ended) is NOT_FOUND.
    long a = replica.grantLease();
    replica.apply(revoke(a));
    assertRefused(campaign(NAME, a, "a"), Code.NOT_FOUND);
    assertRefused(campaign(NAME, 999, "a"), Code.NOT_FOUND);
  }

  @Test
  void campaignOutsideLimitsIsInvalid() {
    // Rule: names must be 1..1024 UTF-8 bytes and values at most 65536 bytes; the bounds are inclusive.
    long a = replica.grantLease();
    String twoByte = "é".repeat(512);
    assertThat(twoByte.getBytes(StandardCharsets.UTF_8)).hasSize(Limits.MAX_NAME_BYTES);
    assertRefused(campaign("", a, "a"), Code.INVALID_ARGUMENT);
    assertRefused(campaign(twoByte + "x", a, "a"), Code.INVALID_ARGUMENT);
    assertRefused(campaign(NAME, a, "v".repeat(Limits.MAX_VALUE_BYTES + 1)), Code.INVALID_ARGUMENT);
    assertThat(replica.apply(campaign(twoByte, a, "v".repeat(Limits.MAX_VALUE_BYTES))).result().getElected())
        .isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"not a protobuf", "\u00ff", "\n", "", "\u0008\u0002\u0052\u0000"})
  void undecodableEntryIsInvalidArgument(String garbage) {
    // Rule: bytes that are not a current-version entry decode without throwing and apply as INVALID_ARGUMENT.
    replica.grantLease();
    LogEntry entry = EntryCodec.decode(garbage.getBytes(StandardCharsets.ISO_8859_1));
    assertRefused(entry, Code.INVALID_ARGUMENT);
  }

  /** Applies an entry that must be refused with {@code code}: no events, tables unchanged, index recorded. */
  private ApplyOutcome assertRefused(LogEntry entry, Code code) {
    String before = replica.tables();
    long index = replica.nextIndex();
    ApplyOutcome out = replica.apply(entry);
    assertThat(out.result().getCode()).as(out.result().getMessage()).isEqualTo(code);
    assertThat(out.events()).isEmpty();
    assertThat(replica.tables()).isEqualTo(before);
    assertThat(replica.appliedIndex()).isEqualTo(index);
    return out;
  }
}
