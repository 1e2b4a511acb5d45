package io.regent.statemachine.store;

import com.google.protobuf.InvalidProtocolBufferException;
import io.regent.statemachine.proto.GroupRecord;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.MemberTiming;
import io.regent.statemachine.proto.NameRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.lmdbjava.CursorIterable;
import org.lmdbjava.Dbi;
import org.lmdbjava.Env;
import org.lmdbjava.KeyRange;
import org.lmdbjava.Txn;

/**
 * Typed access to Regent's tables inside one LMDB transaction.
 *
 * <p>Keys: leases by their id as 8 big-endian bytes (so iteration is in id order); names by the SHA-256 of
 * their UTF-8 bytes, because a name may be up to 1 KiB and LMDB keys are limited to 511 bytes. Iteration
 * order is therefore the same on every replica, which keeps dumps and snapshots byte-comparable.
 */
public final class StateTxn implements StateView {
  private static final byte[] APPLIED_INDEX = "appliedIndex".getBytes(StandardCharsets.US_ASCII);
  /** The largest lease id granted so far (absent in states written before batch entries: read as 0). */
  private static final byte[] LAST_LEASE_ID = "lastLeaseId".getBytes(StandardCharsets.US_ASCII);
  /** Prefix of the meta keys holding members' API addresses ({@code member-api/<id>}). */
  private static final String MEMBER_API = "member-api/";
  /** Prefix of the meta keys holding members' Raft timing ({@code member-timing/<id>}: a MemberTiming). */
  private static final String MEMBER_TIMING = "member-timing/";
  /** Prefix of the meta keys holding ownership groups ({@code group/} + SHA-256 of the group name). */
  private static final byte[] GROUP = "group/".getBytes(StandardCharsets.US_ASCII);
  /** Longest member id stored: keeps the meta key well under LMDB's 511-byte limit. */
  public static final int MAX_MEMBER_ID_BYTES = 128;

  private final Env<byte[]> env;
  private final Txn<byte[]> txn;
  private final Tables tables;
  private final Dbi<byte[]> meta;
  private final Dbi<byte[]> leases;
  private final Dbi<byte[]> names;

  StateTxn(Env<byte[]> env, Txn<byte[]> txn, Tables tables) {
    this.tables = tables;
    this.env = env;
    this.txn = txn;
    this.meta = tables.meta();
    this.leases = tables.leases();
    this.names = tables.names();
  }

  /**
   * Runs {@code body} in a child of this write transaction (an LMDB nested transaction): what it wrote becomes
   * part of this transaction when it returns true, and is discarded when it returns false. Apply uses it to
   * refuse one operation of a batch entry after running it, leaving the others' changes in place.
   *
   * @return what {@code body} returned
   */
  public boolean nested(Predicate<StateTxn> body) {
    try (Txn<byte[]> child = env.txn(txn)) {
      boolean keep = body.test(new StateTxn(env, child, tables));
      if (keep) {
        child.commit();
      }
      return keep;
    }
  }

  /** The stored answers to request ids (docs/api.md "Request ids"). */
  public RequestTable requests() {
    return new RequestTable(txn, meta, tables.requests(), tables.requestOrder());
  }

  /** etcd's keyspace (docs/migrating.md "etcd's KV"). */
  public KvTable kv() {
    return new KvTable(txn, meta, tables.kv(), tables.kvLease());
  }

  /** The watch history of etcd's keyspace (docs/migrating.md "etcd's Watch"). */
  public KvHistory kvHistory() {
    return new KvHistory(txn, meta, tables.kvHistory());
  }

  /** The largest lease id granted so far, 0 when none was recorded (docs/architecture.md §2.2). */
  public long lastLeaseId() {
    byte[] v = meta.get(txn, LAST_LEASE_ID);
    return v == null ? 0 : ByteBuffer.wrap(v).getLong();
  }

  /** Records {@code id} as the largest lease id granted so far. */
  public void setLastLeaseId(long id) {
    meta.put(txn, LAST_LEASE_ID, longKey(id));
  }

  /** Index of the last log entry applied to this state; 0 for an empty state. */
  public long appliedIndex() {
    byte[] v = meta.get(txn, APPLIED_INDEX);
    return v == null ? 0 : ByteBuffer.wrap(v).getLong();
  }

  /** Records the index of the entry whose effects this transaction holds. */
  public void setAppliedIndex(long index) {
    meta.put(txn, APPLIED_INDEX, longKey(index));
  }

  /**
   * SHA-256, in 64 hex digits, over every key and value of every table of this state, in each table's key order:
   * the byte-level identity of a replica. Two replicas at the same {@link #appliedIndex()} must answer the same
   * digest — apply is a pure function of the log (docs/architecture.md §2.2) and nothing node-local is stored in
   * these tables. LMDB's files themselves differ between replicas (page layout follows each one's history), so
   * this, not a file checksum, is what "byte-identical replicas" means (docs/operations.md "Upgrades").
   */
  public String contentDigest() {
    MessageDigest sha = sha256();
    for (Dbi<byte[]> dbi : tables.all()) {
      sha.update(dbi.getName());
      try (CursorIterable<byte[]> it = dbi.iterate(txn)) {
        for (CursorIterable.KeyVal<byte[]> kv : it) {
          // lengths first, so that no two different sequences of keys and values hash the same bytes
          sha.update(ByteBuffer.allocate(8).putInt(kv.key().length).putInt(kv.val().length).array());
          sha.update(kv.key());
          sha.update(kv.val());
        }
      }
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  /** Records the public API address of member {@code id}; an empty address forgets it. */
  public void putMemberApi(String id, String apiAddress) {
    byte[] key = memberKey(id);
    if (apiAddress.isEmpty()) {
      meta.delete(txn, key);
    } else {
      meta.put(txn, key, apiAddress.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** Every recorded member API address, by member id (sorted). */
  public Map<String, String> memberApis() {
    Map<String, String> out = new TreeMap<>();
    forEachMember(MEMBER_API, (id, v) -> out.put(id, new String(v, StandardCharsets.UTF_8)));
    return out;
  }

  /** Records the Raft timing member {@code timing.getMemberId()} runs with (docs/architecture.md §8.1). */
  public void putMemberTiming(MemberTiming timing) {
    meta.put(txn, (MEMBER_TIMING + timing.getMemberId()).getBytes(StandardCharsets.UTF_8), timing.toByteArray());
  }

  /** Every recorded member timing, by member id (sorted). */
  public Map<String, MemberTiming> memberTimings() {
    Map<String, MemberTiming> out = new TreeMap<>();
    forEachMember(MEMBER_TIMING, (id, v) -> {
      try {
        out.put(id, MemberTiming.parseFrom(v));
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalStateException("corrupt timing record of member " + id, e);
      }
    });
    return out;
  }

  private void forEachMember(String prefix, BiConsumer<String, byte[]> each) {
    byte[] from = prefix.getBytes(StandardCharsets.UTF_8);
    byte[] to = from.clone();
    to[to.length - 1]++; // '/' + 1: the first key after the prefix
    try (CursorIterable<byte[]> it = meta.iterate(txn, KeyRange.closedOpen(from, to))) {
      it.forEach(kv -> each.accept(new String(kv.key(), StandardCharsets.UTF_8).substring(prefix.length()), kv.val()));
    }
  }

  /** The lease with this id, or {@code null}. */
  @Override
  public LeaseRecord lease(long id) {
    byte[] v = leases.get(txn, longKey(id));
    return v == null ? null : parseLease(v);
  }

  /** Inserts or replaces a lease. */
  public void putLease(LeaseRecord lease) {
    leases.put(txn, longKey(lease.getId()), lease.toByteArray());
  }

  /** Deletes a lease; no effect when absent. */
  public void deleteLease(long id) {
    leases.delete(txn, longKey(id));
  }

  /** The record of this name, or {@code null} when it has no holder and no candidates. */
  @Override
  public NameRecord name(String name) {
    byte[] v = names.get(txn, nameKey(name));
    return v == null ? null : parseName(v);
  }

  /** Inserts or replaces a name record. */
  public void putName(NameRecord record) {
    names.put(txn, nameKey(record.getName()), record.toByteArray());
  }

  /** Deletes a name record; no effect when absent. */
  public void deleteName(String name) {
    names.delete(txn, nameKey(name));
  }

  /** The ownership group with this name, or {@code null} (a group exists while it has members). */
  public GroupRecord group(String name) {
    byte[] v = meta.get(txn, groupKey(name));
    return v == null ? null : group(v);
  }

  /** Inserts or replaces an ownership group. */
  public void putGroup(GroupRecord group) {
    meta.put(txn, groupKey(group.getName()), group.toByteArray());
  }

  /** Deletes an ownership group; no effect when absent. */
  public void deleteGroup(String name) {
    meta.delete(txn, groupKey(name));
  }

  /** Every ownership group, in key (hash) order. */
  public List<GroupRecord> allGroups() {
    List<GroupRecord> out = new ArrayList<>();
    byte[] to = GROUP.clone();
    to[to.length - 1]++; // '/' + 1: the first key after the prefix
    try (CursorIterable<byte[]> it = meta.iterate(txn, KeyRange.closedOpen(GROUP, to))) {
      it.forEach(kv -> out.add(group(kv.val())));
    }
    return out;
  }

  /** Number of live leases (LMDB's own entry count: O(1), identical on every replica). */
  public long leaseCount() {
    return leases.stat(txn).entries;
  }

  /** Number of names that have a holder, candidates or a lock-delay in force. */
  public long nameCount() {
    return names.stat(txn).entries;
  }

  /** Every lease, in id order. */
  public List<LeaseRecord> allLeases() {
    List<LeaseRecord> out = new ArrayList<>();
    try (CursorIterable<byte[]> it = leases.iterate(txn, KeyRange.all())) {
      it.forEach(kv -> out.add(parseLease(kv.val())));
    }
    return out;
  }

  /** Every name record, in key (hash) order. */
  public List<NameRecord> allNames() {
    List<NameRecord> out = new ArrayList<>();
    try (CursorIterable<byte[]> it = names.iterate(txn, KeyRange.all())) {
      it.forEach(kv -> out.add(parseName(kv.val())));
    }
    return out;
  }

  private static byte[] longKey(long id) {
    return ByteBuffer.allocate(Long.BYTES).putLong(id).array();
  }

  private static byte[] memberKey(String id) {
    return (MEMBER_API + id).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] groupKey(String name) {
    return ByteBuffer.allocate(GROUP.length + 32).put(GROUP).put(nameKey(name)).array();
  }

  private static GroupRecord group(byte[] v) {
    try {
      return GroupRecord.parseFrom(v);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt group record in LMDB", e);
    }
  }

  private static byte[] nameKey(String name) {
    return sha256().digest(name.getBytes(StandardCharsets.UTF_8));
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  private static LeaseRecord parseLease(byte[] v) {
    try {
      return LeaseRecord.parseFrom(v);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt lease record in LMDB", e);
    }
  }

  private static NameRecord parseName(byte[] v) {
    try {
      return NameRecord.parseFrom(v);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt name record in LMDB", e);
    }
  }
}
