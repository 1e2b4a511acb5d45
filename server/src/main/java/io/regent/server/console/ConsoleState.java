package io.regent.server.console;

import com.google.protobuf.ByteString;
import io.regent.api.v1.Member;
import io.regent.api.v1.StatusResponse;
import io.regent.server.confirm.Confirmation;
import io.regent.server.confirm.Confirmer;
import io.regent.server.membership.ClusterView;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.proto.Candidate;
import io.regent.statemachine.proto.GroupMember;
import io.regent.statemachine.proto.GroupRecord;
import io.regent.statemachine.proto.Holder;
import io.regent.statemachine.proto.LeaseRecord;
import io.regent.statemachine.proto.LeaseStatus;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.replica.ReplicaView;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The documents the console's JSON endpoints answer with, as maps and lists for {@link ConsoleJson}.
 *
 * <p>Where they come from, and why: the console is a view of <em>this node</em>, as {@code regent status
 * --serializable} is. Names, leases and groups are read from the local replica through {@link ReplicaView} (the
 * read path of the gRPC services' serializable reads, {@code StateReader}), and every document says the applied
 * index it reflects; cluster facts come from the {@link ClusterView} that {@code Cluster.Status} answers from.
 * A refresh therefore never appends a Raft entry and works on a node that has lost its leader, which is when an
 * operator looks. The one value the local replica cannot know is the time a lease has left (only the ready
 * leader keeps lease time): that is asked as {@code Lease.TimeToLive} asks it, as queried leases of a
 * {@link Confirmer} round (answered from the leadership lease, without a log entry, unless the node runs
 * {@code --confirm strict}), and shown as unknown when no ready leader answers within {@link #TTL_WAIT_MS}.
 * Reaching the gRPC API over loopback instead would need a client identity when permissions are on and has no
 * call that lists names or groups; reaching into LMDB directly would bypass the replica's read transaction.
 *
 * <p>Thread-safe: every method reads in its own transaction.
 */
final class ConsoleState {
  /** How long a document waits for the leader's lease times before showing them as unknown, ms. */
  static final long TTL_WAIT_MS = 2_000;
  /** Bytes of a holder's value shown at most. */
  static final int VALUE_BYTES_SHOWN = 256;

  private final ClusterView cluster;
  private final ReplicaView replica;
  private final Confirmer confirmer;
  private final Supplier<Optional<String>> notReady;

  /**
   * @param notReady this node's readiness, as {@code /readyz} answers it (empty: ready)
   */
  ConsoleState(ClusterView cluster, ReplicaView replica, Confirmer confirmer, Supplier<Optional<String>> notReady) {
    this.cluster = cluster;
    this.replica = replica;
    this.confirmer = confirmer;
    this.notReady = notReady;
  }

  /** Members, role, term, indexes, leader and health as this node sees them now. */
  Map<String, Object> cluster() {
    StatusResponse s = cluster.status();
    Optional<String> reason;
    try {
      reason = notReady.get();
    } catch (RuntimeException e) {
      reason = Optional.of("readiness check failed: " + e);
    }
    Map<String, Long> contact = cluster.lastContactMs();
    List<Object> members = new ArrayList<>();
    for (Member m : s.getMembersList()) {
      members.add(obj("id", m.getId(), "address", m.getAddress(),
          "apiAddress", m.getApiAddress().isEmpty() ? null : m.getApiAddress(),
          "role", m.getRole() == Member.Role.LEARNER ? "learner" : "voter",
          "leader", m.getId().equals(s.getLeader()), "self", m.getId().equals(s.getNode()),
          "lastContactMs", contact.get(m.getId()),
          "matchIndex", m.hasReplication() ? m.getReplication().getMatchIndex() : null,
          "lagEntries", m.hasReplication() ? m.getReplication().getLagEntries() : null,
          "lagSeconds", m.hasReplication() ? m.getReplication().getLagSeconds() : null));
    }
    return obj("node", s.getNode(), "role", s.getRole(), "leader", s.getLeader().isEmpty() ? null : s.getLeader(),
        "term", s.getTerm(), "commitIndex", s.getCommitIndex(), "appliedIndex", s.getAppliedIndex(),
        "version", s.getVersion(), "dbSizeBytes", s.getDbSizeBytes(), "ready", reason.isEmpty(),
        "notReady", reason.orElse(null), "degraded", s.getDegraded().isEmpty() ? null : s.getDegraded(),
        "members", members, "kv", s.hasKv() ? obj("keys", s.getKv().getKeys(), "bytes", s.getKv().getBytes(), "watchers",
            s.getKv().getWatchers()) : null);
  }

  /**
   * Names starting with {@code prefix}, sorted, at most {@code limit}: holder (lease, token, value, lock-delay it
   * asked for, time its lease has left), waiting candidates in queue order, and the lock-delay in force.
   */
  Map<String, Object> names(String prefix, int limit) {
    record Read(List<NameRecord> names, long total, long index) {
    }
    Read r = replica.read(txn -> {
      List<NameRecord> all = new ArrayList<>();
      for (NameRecord n : txn.allNames()) {
        if (n.getName().startsWith(prefix)) {
          all.add(n);
        }
      }
      return new Read(all, all.size(), txn.appliedIndex());
    });
    List<NameRecord> shown = r.names().stream().sorted(Comparator.comparing(NameRecord::getName)).limit(limit)
        .toList();
    Ttl ttl = ttlLeft(shown.stream().filter(NameRecord::hasHolder).map(n -> n.getHolder().getLeaseId()).toList());
    List<Object> out = new ArrayList<>();
    for (NameRecord n : shown) {
      Map<String, Object> holder = null;
      if (n.hasHolder()) {
        Holder h = n.getHolder();
        holder = obj("lease", h.getLeaseId(), "token", h.getToken(), "sinceIndex", h.getSinceIndex(),
            "value", value(h.getValue()), "lockDelayMs", h.getLockDelayMs(), "ttlLeftMs", ttl.left(h.getLeaseId()));
      }
      List<Object> waiters = new ArrayList<>();
      for (Candidate c : n.getCandidatesList()) {
        waiters.add(obj("lease", c.getLeaseId(), "registeredIndex", c.getRegisteredIndex(),
            "value", value(c.getValue()), "lockDelayMs", c.getLockDelayMs(), "allNames", c.getAllNamesList()));
      }
      Object delay = n.getLockDelayMs() == 0 ? null
          : obj("ms", n.getLockDelayMs(), "startIndex", n.getLockDelayStartIndex());
      out.add(obj("name", n.getName(), "holder", holder, "waiters", waiters, "lockDelay", delay));
    }
    return obj("appliedIndex", r.index(), "total", r.total(), "shown", out.size(), "ttlUnknown", ttl.unknown(),
        "names", out);
  }

  /** Leases in id order, at most {@code limit}: TTL, time left (measured by the ready leader), names, groups. */
  Map<String, Object> leases(int limit) {
    record Read(List<LeaseRecord> leases, long total, long index) {
    }
    Read r = replica.read(txn -> {
      List<LeaseRecord> all = txn.allLeases();
      return new Read(all.subList(0, Math.min(limit, all.size())), all.size(), txn.appliedIndex());
    });
    Ttl ttl = ttlLeft(r.leases().stream().map(LeaseRecord::getId).toList());
    List<Object> out = new ArrayList<>();
    for (LeaseRecord l : r.leases()) {
      out.add(obj("id", l.getId(), "ttlMs", l.getTtlMs(), "ttlLeftMs", ttl.left(l.getId()),
          "names", l.getNamesList(), "groups", l.getGroupsList()));
    }
    return obj("appliedIndex", r.index(), "total", r.total(), "shown", out.size(), "ttlUnknown", ttl.unknown(),
        "leases", out);
  }

  /**
   * Every ownership group, sorted by name: members, and per partition its owner (member id, lease, token) and
   * the member it moves to when the assignment gives it to another one ({@code next}, else null).
   */
  Map<String, Object> groups() {
    record Read(List<GroupRecord> groups, long index) {
    }
    Read r = replica.read(txn -> new Read(txn.allGroups(), txn.appliedIndex()));
    List<Object> out = new ArrayList<>();
    for (GroupRecord g : r.groups().stream().sorted(Comparator.comparing(GroupRecord::getName)).toList()) {
      Map<Long, String> ids = new HashMap<>();
      List<Object> members = new ArrayList<>();
      for (GroupMember m : g.getMembersList()) {
        ids.put(m.getLeaseId(), m.getId());
        members.add(obj("id", m.getId(), "lease", m.getLeaseId(), "joinedIndex", m.getJoinedIndex()));
      }
      List<Object> partitions = new ArrayList<>();
      for (int p = 0; p < g.getPartitions(); p++) {
        long owner = g.getOwner(p);
        long target = g.getTarget(p);
        partitions.add(obj("partition", p, "owner", owner == 0 ? null : ids.getOrDefault(owner, "?"),
            "lease", owner, "token", owner == 0 ? null : g.getToken(p),
            "next", target != owner && target != 0 ? ids.getOrDefault(target, "?") : null));
      }
      out.add(obj("name", g.getName(), "partitions", g.getPartitions(), "members", members,
          "owners", partitions));
    }
    return obj("appliedIndex", r.index(), "groups", out);
  }

  /** One page of {@code log}, with this replica's applied index. */
  Map<String, Object> events(EventLog log, long after, int limit) {
    EventLog.Page page = log.after(after, limit);
    List<Object> out = new ArrayList<>();
    for (EventLog.Numbered n : page.events()) {
      ChangeEvent e = n.event();
      Holder h = e.holder();
      out.add(obj("seq", n.seq(), "index", e.index(), "kind", e.kind().name().toLowerCase(java.util.Locale.ROOT),
          "name", e.name(), "lease", e.leaseId(),
          "holder", h == null ? null : obj("lease", h.getLeaseId(), "token", h.getToken(), "value",
              value(h.getValue()))));
    }
    return obj("next", page.next(), "compacted", page.compacted(), "appliedIndex", replica.hub().appliedIndex(),
        "events", out);
  }

  /** Time left of some leases as the ready leader measured it; {@code unknown}: why there is none, else null. */
  private record Ttl(Map<Long, LeaseStatus> leases, String unknown) {
    Long left(long id) {
      LeaseStatus s = leases.get(id);
      return s == null || !s.getAlive() || s.getRemainingMs() < 0 ? null : s.getRemainingMs();
    }
  }

  private Ttl ttlLeft(List<Long> ids) {
    if (ids.isEmpty()) {
      return new Ttl(Map.of(), null);
    }
    try {
      Confirmation c = confirmer.confirmLeases(List.of(), ids.stream().distinct().toList())
          .get(TTL_WAIT_MS, TimeUnit.MILLISECONDS);
      return new Ttl(c.leases(), null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Ttl(Map.of(), "interrupted");
    } catch (Exception e) {
      return new Ttl(Map.of(), "no ready leader measured the leases' time (" + e.getClass().getSimpleName() + ")");
    }
  }

  /** A value as text when it is UTF-8, else as {@code 0x} and hex; at most {@link #VALUE_BYTES_SHOWN} bytes. */
  static String value(ByteString v) {
    ByteString shown = v.size() > VALUE_BYTES_SHOWN ? v.substring(0, VALUE_BYTES_SHOWN) : v;
    String more = v.size() > VALUE_BYTES_SHOWN ? "…" : "";
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(shown.toByteArray())) + more;
    } catch (CharacterCodingException e) {
      return "0x" + HexFormat.of().formatHex(shown.toByteArray()) + more;
    }
  }

  /** An ordered JSON object of alternating keys and values (null values kept). */
  static Map<String, Object> obj(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }
}
