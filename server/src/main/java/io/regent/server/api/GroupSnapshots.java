package io.regent.server.api;

import io.regent.api.v1.GroupWatchResponse;
import io.regent.statemachine.proto.GroupRecord;
import io.regent.statemachine.replica.ReplicaView;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The latest read of each watched ownership group on this node, shared by all of that group's Watch streams
 * (docs/ownership.md). Without it every stream re-read and re-parsed the whole group record (about 150 KB
 * at 10 000 partitions) and scanned every partition for its member on each change: 100 members cost 100
 * reads and 100 scans per change. Now a change costs one read and one pass over the partitions, which
 * builds every member's view at once; the streams then pick their own.
 *
 * <p>A stream asks for a snapshot read at or after the index of the latest change it has heard of, so it
 * never gets an older state than its event promised; a cached snapshot that is recent enough is reused.
 */
final class GroupSnapshots {
  private final ReplicaView replica;
  private final Map<String, Shared> groups = new ConcurrentHashMap<>();

  GroupSnapshots(ReplicaView replica) {
    this.replica = replica;
  }

  /** Every member's view of one group as read at one applied index. */
  record Snapshot(long index, GroupRecord group, Map<String, GroupWatchResponse> members) {
    /** {@code member}'s view; not joined when it is no member (or the group does not exist). */
    GroupWatchResponse member(String member) {
      GroupWatchResponse v = members.get(member);
      return v != null ? v : GroupViews.absent(group, index);
    }
  }

  /** One group's latest snapshot, used by {@code users} streams (guarded by the map's compute). */
  final class Shared {
    private final String name;
    private int users;
    private Snapshot latest;

    private Shared(String name) {
      this.name = name;
    }

    /**
     * A snapshot read at an applied index of at least {@code atLeast}: the cached one when it is that recent,
     * else a new read (one at a time per group: the streams waiting meanwhile then share it).
     */
    synchronized Snapshot atLeast(long atLeast) {
      if (latest == null || latest.index() < atLeast) {
        latest = replica.read(txn -> {
          GroupRecord g = txn.group(name);
          long index = txn.appliedIndex();
          return new Snapshot(index, g, g == null ? Map.of() : GroupViews.members(g, index));
        });
      }
      return latest;
    }
  }

  /** The shared snapshot of {@code group} for one more stream; give it back with {@link #close}. */
  Shared open(String group) {
    return groups.compute(group, (g, s) -> {
      Shared shared = s != null ? s : new Shared(g);
      shared.users++;
      return shared;
    });
  }

  /** One stream less: the snapshot is dropped with its last stream. */
  void close(Shared shared) {
    groups.computeIfPresent(shared.name, (g, s) -> --s.users == 0 ? null : s);
  }

  /** Groups with at least one stream (for tests). */
  int watchedGroups() {
    return groups.size();
  }
}
