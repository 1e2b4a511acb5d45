package io.regent.statemachine.support;

import com.google.protobuf.ByteString;
import io.regent.statemachine.apply.ApplyOutcome;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.limits.Limits;
import io.regent.statemachine.proto.KvCompact;
import io.regent.statemachine.proto.KvCompare;
import io.regent.statemachine.proto.KvDeleteRange;
import io.regent.statemachine.proto.KvOp;
import io.regent.statemachine.proto.KvPut;
import io.regent.statemachine.proto.KvRange;
import io.regent.statemachine.proto.KvTxn;
import io.regent.statemachine.proto.LogEntry;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.store.KvTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded pseudo-random log mixing every command (etcd's keyspace too), valid and invalid, across several
 * terms. It is written against a driver replica, like clients that read the state before proposing: tokens and lease ids are
 * mostly current ones, sometimes stale, unknown or out of limits. The driver applies each entry as it is
 * generated; the recorded log can then be replayed on other replicas.
 */
public final class RandomLog {
  /** One log entry with its Raft position. */
  public record Logged(long index, long term, LogEntry entry) {
  }

  private static final List<String> NAMES =
      List.of("a", "b", "c", "locks/db", "élection/ü", "n".repeat(Limits.MAX_NAME_BYTES));

  private final Random random;
  private final Replica driver;
  private final List<Long> granted = new ArrayList<>();
  private final List<Logged> log = new ArrayList<>();
  private final List<ApplyOutcome> outcomes = new ArrayList<>();
  private long term = 1;

  public RandomLog(long seed, Replica driver) {
    this.random = new Random(seed);
    this.driver = driver;
  }

  /** Generates {@code count} more entries, applying each to the driver. */
  public void extend(int count) {
    for (int i = 0; i < count; i++) {
      if (random.nextInt(50) == 0) {
        term++;
      }
      Logged next = new Logged(driver.nextIndex(), term, nextEntry());
      log.add(next);
      outcomes.add(driver.applyAt(next.index(), next.term(), next.entry()));
    }
  }

  /** Every entry generated so far, in log order. */
  public List<Logged> entries() {
    return List.copyOf(log);
  }

  /** The driver's outcome of each entry, in log order. */
  public List<ApplyOutcome> outcomes() {
    return List.copyOf(outcomes);
  }

  private LogEntry nextEntry() {
    int pick = random.nextInt(100);
    if (pick < 12) {
      LogEntry grant = Entries.grant(ttl());
      granted.add(driver.nextIndex());
      return grant;
    } else if (pick < 31) {
      return Entries.campaign(name(), leaseId(), value());
    } else if (pick < 37) {
      // A campaign that grants its own lease (the id is this entry's index when it registers).
      granted.add(driver.nextIndex());
      return Entries.campaignWithTtl(name(), ttl(), value(), random.nextInt(4) == 0 ? 3 : 0, random.nextBoolean());
    } else if (pick < 42) {
      return Entries.revoke(leaseId());
    } else if (pick < 48) {
      long proposerTerm = random.nextInt(8) == 0 ? term - 1 : term;
      return Entries.expire(proposerTerm, leaseId(), leaseId());
    } else if (pick < 58) {
      String name = name();
      return Entries.proclaim(name, token(name), value());
    } else if (pick < 65) {
      String name = name();
      return Entries.resign(name, token(name));
    } else if (pick < 70) {
      String name = name();
      return Entries.resignAndRevoke(name, token(name));
    } else if (pick < 80) {
      return Entries.withdraw(name(), leaseId());
    } else if (pick < 92) {
      String name = name();
      return Entries.freshToken(name, token(name));
    } else if (pick < 97) {
      return Entries.confirm(leaseId(), leaseId());
    } else if (pick == 97) {
      // ownership groups: their lease ends free partitions in the same applies as the names
      return Entries.groupJoin("group-" + random.nextInt(2), "m" + random.nextInt(4), leaseId(), 16);
    } else if (pick == 98) {
      return kv();
    }
    byte[] garbage = new byte[random.nextInt(8)];
    random.nextBytes(garbage);
    return EntryCodec.decode(garbage);
  }

  /**
   * An operation on etcd's keyspace: a put (mostly on a lease of this log, live or ended), a delete of a key or a
   * prefix, a Txn taking a key on create_revision 0, or a compaction to a random revision.
   */
  private LogEntry kv() {
    ByteString key = kvKey();
    LogEntry.Builder e = LogEntry.newBuilder();
    switch (random.nextInt(4)) {
      case 0 -> e.setKvPut(KvPut.newBuilder().setKey(key).setValue(ByteString.copyFromUtf8(value()))
          .setLease(random.nextBoolean() ? leaseId() : 0).setPrevKv(random.nextBoolean()));
      case 1 -> e.setKvDeleteRange(KvDeleteRange.newBuilder().setKey(key)
          .setRangeEnd(random.nextBoolean() ? ByteString.EMPTY : ByteString.copyFromUtf8("kv0")));
      case 2 -> e.setKvTxn(KvTxn.newBuilder()
          .addCompares(KvCompare.newBuilder().setKey(key).setTarget(1).setResult(random.nextInt(4)))
          .addSuccess(KvOp.newBuilder().setPut(KvPut.newBuilder().setKey(key).setLease(leaseId())))
          .addFailure(KvOp.newBuilder().setRange(KvRange.newBuilder().setKey(key))));
      default -> e.setKvCompact(KvCompact.newBuilder().setRevision(random.nextInt((int) driver.nextIndex() + 5)));
    }
    return Entries.logged(e);
  }

  /** Mostly a key of a small pool; sometimes empty or one byte over the keyspace's limit. */
  private ByteString kvKey() {
    int pick = random.nextInt(20);
    if (pick == 0) {
      return ByteString.EMPTY;
    }
    return ByteString.copyFromUtf8(pick == 1 ? "k".repeat(KvTable.MAX_KEY_BYTES + 1) : "kv/" + random.nextInt(5));
  }

  private long ttl() {
    return random.nextInt(10) == 0 ? List.of(0L, -5L, Limits.MAX_TTL_MS + 1).get(random.nextInt(3))
        : 1 + random.nextInt(60_000);
  }

  /** Mostly a name of the pool; sometimes empty or one byte over the limit. */
  private String name() {
    int pick = random.nextInt(60);
    if (pick == 0) {
      return "";
    }
    return pick == 1 ? "n".repeat(Limits.MAX_NAME_BYTES + 1) : NAMES.get(random.nextInt(NAMES.size()));
  }

  /** Mostly a lease granted in this log (live or ended); sometimes an id that was never granted. */
  private long leaseId() {
    if (granted.isEmpty() || random.nextInt(10) == 0) {
      return random.nextInt(3000);
    }
    return granted.get(granted.size() - 1 - random.nextInt(Math.min(granted.size(), 12)));
  }

  /** Mostly the holder's current token; sometimes a stale or made-up one. */
  private long token(String name) {
    NameRecord rec = Limits.checkName(name) == null ? driver.name(name) : null;
    if (rec != null && rec.hasHolder() && random.nextInt(4) != 0) {
      return rec.getHolder().getToken() - (random.nextInt(10) == 0 ? 1 : 0);
    }
    return random.nextInt((int) driver.nextIndex());
  }

  /** Mostly a short value; rarely one byte over the limit. */
  private String value() {
    if (random.nextInt(200) == 0) {
      return "v".repeat(Limits.MAX_VALUE_BYTES + 1);
    }
    StringBuilder v = new StringBuilder();
    for (int i = random.nextInt(12); i > 0; i--) {
      v.append((char) ('a' + random.nextInt(26)));
    }
    return v.toString();
  }
}
