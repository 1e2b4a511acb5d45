package io.regent.cli.output;

import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.LeaseInfo;
import io.regent.api.v1.LedgerEntry;
import io.regent.api.v1.LeaseTimeToLiveResponse;
import io.regent.api.v1.Member;
import io.regent.api.v1.ObserveResponse;
import io.regent.api.v1.StatusResponse;
import java.util.List;
import java.util.Locale;

/** Text and JSON renderings of API messages; each method returns one line unless noted. */
public final class Format {
  private Format() {
  }

  /** A leader key: {@code NAME VALUE token=N lease=L}, or {@code {"name":..,"value":..,"token":N,"lease":L}}. */
  public static String leaderKey(LeaderKey k, boolean json) {
    if (json) {
      return leaderJson(k).toString();
    }
    return k.getName() + " " + k.getValue().toStringUtf8() + " token=" + k.getToken() + " lease=" + k.getLease();
  }

  /** A holder as a JSON object: {@code name}, {@code value}, {@code token}, {@code lease}. */
  public static Json leaderJson(LeaderKey k) {
    return Json.obj().put("name", k.getName()).put("value", k.getValue().toStringUtf8())
        .put("token", k.getToken()).put("lease", k.getLease());
  }

  /** The line {@code regent elect} prints once elected. */
  public static String grant(LeaderKey k, boolean json) {
    return json ? leaderKey(k, true) : "elected " + leaderKey(k, false);
  }

  /** One Observe event: {@code ELECTED jobs node-a token=412 lease=398 index=412} ({@code none} when free). */
  public static String event(ObserveResponse r, boolean json) {
    boolean held = r.hasLeader();
    String name = r.getName();
    if (json) {
      LeaderKey k = r.getLeader();
      return Json.obj().put("kind", r.getKind().name()).put("name", name)
          .put("value", held ? k.getValue().toStringUtf8() : null).put("token", held ? k.getToken() : null)
          .put("lease", held ? k.getLease() : null).put("index", r.getIndex()).put("compacted", r.getCompacted())
          .toString();
    }
    LeaderKey k = r.getLeader();
    String holder = held ? k.getValue().toStringUtf8() + " token=" + k.getToken() + " lease=" + k.getLease() : "none";
    return r.getKind().name() + " " + name + " " + holder + " index=" + r.getIndex()
        + (r.getCompacted() ? " compacted" : "");
  }

  /** Cluster status: several {@code key value} lines, or one JSON object. */
  public static String status(StatusResponse s, boolean json) {
    String leader = s.getLeader().isEmpty() ? null : s.getLeader();
    if (json) {
      List<Json> members = s.getMembersList().stream()
          .map(m -> Json.obj().put("id", m.getId()).put("address", m.getAddress())
              .put("api_address", m.getApiAddress().isEmpty() ? null : m.getApiAddress()).put("role", role(m))
              .put("match_index", m.hasReplication() ? m.getReplication().getMatchIndex() : null)
              .put("lag_entries", m.hasReplication() ? m.getReplication().getLagEntries() : null)
              .put("lag_seconds", m.hasReplication() ? m.getReplication().getLagSeconds() : null))
          .toList();
      return Json.obj().put("node", s.getNode()).put("role", s.getRole()).put("leader", leader)
          .put("term", s.getTerm()).put("commit_index", s.getCommitIndex())
          .put("applied_index", s.getAppliedIndex()).put("members", members)
          .put("console_url", s.getConsoleUrl().isEmpty() ? null : s.getConsoleUrl())
          .put("etcd_address", s.getEtcdAddress().isEmpty() ? null : s.getEtcdAddress())
          .put("kv", s.hasKv() ? Json.obj().put("keys", s.getKv().getKeys()).put("bytes", s.getKv().getBytes())
              .put("watchers", s.getKv().getWatchers()) : null)
          .put("degraded", s.getDegraded().isEmpty() ? null : s.getDegraded())
          .put("cells", s.getCellsCount() == 0 ? null : s.getCellsList().stream().map(c -> Json.obj()
              .put("cell", c.getCell()).put("leader", c.getLeader().isEmpty() ? null : c.getLeader())
              .put("term", c.getTerm()).put("commit_index", c.getCommitIndex())
              .put("applied_index", c.getAppliedIndex()).put("role", c.getRole())).toList()).toString();
    }
    StringBuilder members = new StringBuilder();
    for (Member m : s.getMembersList()) {
      members.append(members.length() == 0 ? "" : " ").append(m.getId()).append('=').append(m.getAddress())
          .append(m.getId().equals(s.getLeader()) ? "*" : "");
    }
    return String.join(System.lineSeparator(),
        "node     " + s.getNode() + (s.getRole().isEmpty() ? "" : " (" + s.getRole() + ")"),
        "leader   " + (leader == null ? "none" : leader),
        "term     " + s.getTerm(),
        "commit   " + s.getCommitIndex(),
        "applied  " + s.getAppliedIndex(),
        "members  " + members) + lag(s) + (s.getConsoleUrl().isEmpty() ? ""
        : System.lineSeparator() + "console  " + s.getConsoleUrl()) + (s.getEtcdAddress().isEmpty() ? ""
        : System.lineSeparator() + "etcd     " + s.getEtcdAddress()) + (!s.hasKv() ? ""
        : System.lineSeparator() + "kv       " + s.getKv().getKeys() + " keys, " + s.getKv().getBytes() + " bytes, "
        + s.getKv().getWatchers() + " watchers") + cells(s);
  }

  /**
   * One line per cell on a cluster of several ({@code cell 2   leader=n1 term=3 commit=812 applied=812 FOLLOWER});
   * nothing on one of one cell.
   */
  private static String cells(StatusResponse s) {
    StringBuilder out = new StringBuilder();
    for (var c : s.getCellsList()) {
      out.append(System.lineSeparator()).append(String.format(Locale.ROOT, "cell %-4d leader=%s term=%d commit=%d "
          + "applied=%d %s", c.getCell(), c.getLeader().isEmpty() ? "none" : c.getLeader(), c.getTerm(),
          c.getCommitIndex(), c.getAppliedIndex(), c.getRole()));
    }
    return out.toString();
  }

  /**
   * The followers' lines of the leader's figures ({@code lag      n2 match=1203 behind=0 entries, 0.0 s}, one per
   * member but the leader) and its {@code degraded: ...} line; without them (a follower answered, and the leader
   * could not be asked), a line naming the leader to ask.
   */
  private static String lag(StatusResponse s) {
    StringBuilder out = new StringBuilder();
    for (Member m : s.getMembersList()) {
      if (m.hasReplication() && !m.getId().equals(s.getLeader())) {
        out.append(System.lineSeparator()).append("lag      ").append(m.getId()).append(" match=")
            .append(m.getReplication().getMatchIndex()).append(" behind=").append(m.getReplication().getLagEntries()).append(" entries, ")
            .append(String.format(Locale.ROOT, "%.1f s", m.getReplication().getLagSeconds()));
      }
    }
    boolean fromLeader = s.getMembersList().stream().anyMatch(Member::hasReplication);
    if (!fromLeader && !s.getLeader().isEmpty() && !s.getLeader().equals(s.getNode())) {
      out.append(System.lineSeparator()).append("lag      known on the leader only: ask ").append(s.getLeader());
    }
    if (!s.getDegraded().isEmpty()) {
      out.append(System.lineSeparator()).append(s.getDegraded());
    }
    return out.toString();
  }

  /**
   * One member: {@code n4 learner raft=127.0.0.1:7004 api=127.0.0.1:7104}, {@code leader} appended for the Raft
   * leader; JSON {@code {"id":..,"role":"voter"|"learner","raft":..,"api":..,"leader":bool}}.
   */
  public static String member(Member m, String leader, boolean json) {
    boolean leads = m.getId().equals(leader);
    String api = m.getApiAddress().isEmpty() ? null : m.getApiAddress();
    if (json) {
      return Json.obj().put("id", m.getId()).put("role", role(m)).put("raft", m.getAddress()).put("api", api)
          .put("leader", leads).toString();
    }
    return m.getId() + " " + role(m) + " raft=" + m.getAddress() + " api=" + (api == null ? "unknown" : api)
        + (leads ? " leader" : "");
  }

  private static String role(Member m) {
    return m.getRole() == Member.Role.LEARNER ? "learner" : "voter";
  }

  /** One lease of a listing. */
  public static String lease(LeaseInfo l, boolean json) {
    if (json) {
      return Json.obj().put("id", l.getId()).put("ttl_ms", l.getTtlMs()).put("names", l.getNamesList()).toString();
    }
    return "lease " + l.getId() + " ttl=" + l.getTtlMs() + "ms" + names(l.getNamesList());
  }

  /** A lease's TTL and remaining time. */
  public static String timeToLive(LeaseTimeToLiveResponse t, boolean json) {
    if (json) {
      return Json.obj().put("id", t.getId()).put("ttl_ms", t.getTtlMs()).put("remaining_ms", t.getRemainingMs())
          .put("names", t.getNamesList()).toString();
    }
    return "lease " + t.getId() + " ttl=" + t.getTtlMs() + "ms remaining=" + t.getRemainingMs() + "ms"
        + names(t.getNamesList());
  }

  /** A granted or renewed lease: {@code lease ID ttl=Nms}. */
  public static String leaseTtl(long id, long ttlMs, boolean json) {
    return json ? Json.obj().put("id", id).put("ttl_ms", ttlMs).toString() : "lease " + id + " ttl=" + ttlMs + "ms";
  }

  /** One ledger entry: {@code position=3 token=412 entry=node-a #7}. */
  public static String ledgerEntry(LedgerEntry e, boolean json) {
    String entry = e.getEntry().toStringUtf8();
    if (json) {
      return Json.obj().put("position", e.getPosition()).put("token", e.getToken()).put("entry", entry).toString();
    }
    return "position=" + e.getPosition() + " token=" + e.getToken() + " entry=" + entry;
  }

  /** An admitted append: {@code appended jobs position=3 token=412}. */
  public static String appended(String key, long position, long token, boolean json) {
    if (json) {
      return Json.obj().put("key", key).put("position", position).put("token", token).toString();
    }
    return "appended " + key + " position=" + position + " token=" + token;
  }

  /**
   * An idempotent append: {@code appended jobs position=3 token=412 replayed=false}, {@code replayed=true} when
   * the ledger answered with an earlier append of the same idempotency key (nothing stored).
   */
  public static String appended(String key, long position, long token, boolean replayed, boolean json) {
    if (json) {
      return Json.obj().put("key", key).put("position", position).put("token", token).put("replayed", replayed)
          .toString();
    }
    return appended(key, position, token, false) + " replayed=" + replayed;
  }

  private static String names(List<String> names) {
    return names.isEmpty() ? "" : " names=" + String.join(",", names);
  }
}
