package io.regent.statemachine.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.ByteString;
import io.regent.statemachine.apply.Applier;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.Campaign;
import io.regent.statemachine.proto.Checkpoint;
import io.regent.statemachine.proto.Confirm;
import io.regent.statemachine.proto.EndLockDelay;
import io.regent.statemachine.proto.Expire;
import io.regent.statemachine.proto.FreshToken;
import io.regent.statemachine.proto.Grant;
import io.regent.statemachine.proto.LeaseCheckpoint;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.proto.Proclaim;
import io.regent.statemachine.proto.Resign;
import io.regent.statemachine.proto.Result;
import io.regent.statemachine.proto.Revoke;
import io.regent.statemachine.proto.Withdraw;
import io.regent.statemachine.store.RegentStore;
import io.regent.statemachine.store.StateTxn;
import io.regent.statemachine.support.StateDump;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes the log-entry decoder and apply (Jazzer): a sequence of entries, each either raw bytes through
 * {@link EntryCodec#decode} or a structured command with fuzzed fields, applied to two LMDB replicas.
 *
 * <p>Properties: apply never throws (a bad entry is a refusal {@link Result}, docs/architecture.md §9); both replicas
 * return byte-identical results and reach identical state (determinism); and the state stays well formed:
 * every holder and candidate belongs to a live lease that lists the name, and every holder's token is at most
 * the applied index. Regression mode (plain {@code mvn verify}) replays the corpus in
 * {@code src/test/resources/io/regent/statemachine/fuzz/ApplyFuzzTestInputs}; {@code JAZZER_FUZZ=1} fuzzes.
 */
class ApplyFuzzTest {
  static final List<String> NAMES = List.of("a", "b", "locks/db", "é");
  static Path dir;
  static RegentStore first;
  static RegentStore second;

  @BeforeAll
  static void open() throws IOException {
    dir = Files.createTempDirectory("regent-fuzz");
    first = RegentStore.open(dir.resolve("a"));
    second = RegentStore.open(dir.resolve("b"));
  }

  @AfterAll
  static void close() throws IOException {
    first.close();
    second.close();
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @FuzzTest(maxDuration = "20s")
  void applyNeverThrowsAndIsDeterministic(FuzzedDataProvider data) {
    wipe(first);
    wipe(second);
    long index = 0;
    int entries = data.consumeInt(1, 16);
    for (int i = 0; i < entries && data.remainingBytes() > 0; i++) {
      index += data.consumeInt(1, 3);
      long term = data.consumeLong(0, 3);
      LogEntry entry = data.consumeBoolean()
          ? EntryCodec.decode(data.consumeBytes(data.consumeInt(0, 300)))
          : EntryCodec.decode(EntryCodec.encode(command(data, index), EntryCodec.MAX_VERSION));
      long at = index;
      Result a = first.write(txn -> apply(txn, entry, at, term));
      Result b = second.write(txn -> apply(txn, entry, at, term));
      assertThat(b.toByteArray()).isEqualTo(a.toByteArray());
    }
    String dump = first.read(StateDump::of);
    assertThat(second.read(StateDump::of)).isEqualTo(dump);
    first.read(ApplyFuzzTest::checkWellFormed);
  }

  private static Result apply(StateTxn txn, LogEntry entry, long index, long term) {
    Result r = Applier.apply(txn, entry, index, term).result();
    txn.setAppliedIndex(index);
    return r;
  }

  private static LogEntry.Builder command(FuzzedDataProvider d, long index) {
    LogEntry.Builder e = LogEntry.newBuilder();
    long lease = d.consumeLong(-1, index);
    String name = d.consumeBoolean() ? NAMES.get(d.consumeInt(0, NAMES.size() - 1)) : d.consumeString(40);
    switch (d.consumeInt(0, 10)) {
      case 0 -> e.setGrant(Grant.newBuilder().setTtlMs(d.consumeLong(-1, 4_000_000)).setMaxLeases(d.consumeLong(0, 4)));
      case 1 -> e.setRevoke(Revoke.newBuilder().setLeaseId(lease));
      case 2 -> e.setExpire(Expire.newBuilder().addLeaseIds(lease).addLeaseIds(d.consumeLong(0, index))
          .setProposerTerm(d.consumeLong(0, 3)));
      case 3 -> e.setCampaign(Campaign.newBuilder().setName(name).setLeaseId(lease)
          .setValue(ByteString.copyFrom(d.consumeBytes(16))).setLockDelayMs(d.consumeLong(-1, 10_000))
          .setNoWait(d.consumeBoolean()).setMaxNames(d.consumeLong(0, 3)).setMaxCandidates(d.consumeLong(0, 2)));
      case 4 -> e.setProclaim(Proclaim.newBuilder().setName(name).setToken(d.consumeLong(-1, index))
          .setValue(ByteString.copyFrom(d.consumeBytes(16))));
      case 5 -> e.setResign(Resign.newBuilder().setName(name).setToken(d.consumeLong(-1, index)));
      case 6 -> e.setWithdraw(Withdraw.newBuilder().setName(name).setLeaseId(lease));
      case 7 -> e.setFreshToken(FreshToken.newBuilder().setName(name).setToken(d.consumeLong(-1, index)));
      case 8 -> e.setEndLockDelay(EndLockDelay.newBuilder().setName(name).setProposerTerm(d.consumeLong(0, 3))
          .setDelayStartIndex(d.consumeLong(0, index)));
      case 9 -> e.setLeaseCheckpoint(LeaseCheckpoint.newBuilder().setProposerTerm(d.consumeLong(0, 3))
          .addCheckpoints(Checkpoint.newBuilder().setLeaseId(lease).setRemainingMs(d.consumeLong(-1, 4_000_000))
              .setRenewedIndex(d.consumeLong(0, index))));
      default -> e.setConfirm(Confirm.newBuilder().addRenewLeaseIds(lease).addQueryLeaseIds(d.consumeLong(-1, index))
          .addQueryNames(name));
    }
    return e;
  }

  private static Void checkWellFormed(StateTxn txn) {
    long applied = txn.appliedIndex();
    for (NameRecord rec : txn.allNames()) {
      if (rec.hasHolder()) {
        assertThat(rec.getHolder().getToken()).isBetween(1L, applied);
        assertListed(txn, rec.getHolder().getLeaseId(), rec.getName());
      }
      rec.getCandidatesList().forEach(c -> assertListed(txn, c.getLeaseId(), rec.getName()));
    }
    return null;
  }

  private static void assertListed(StateTxn txn, long leaseId, String name) {
    LeaseRecord lease = txn.lease(leaseId);
    assertThat(lease).as("lease %d of '%s'", leaseId, name).isNotNull();
    assertThat(lease.getNamesList()).contains(name);
  }

  private static void wipe(RegentStore store) {
    store.write(txn -> {
      txn.allLeases().forEach(l -> txn.deleteLease(l.getId()));
      txn.allNames().forEach(n -> txn.deleteName(n.getName()));
      txn.setAppliedIndex(0);
      return null;
    });
  }
}
