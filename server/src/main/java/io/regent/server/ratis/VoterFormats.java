package io.regent.server.ratis;

import io.regent.server.replication.EntryFormat;
import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.MemberTiming;
import io.regent.statemachine.replica.ReplicaView;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The entry format every current voter applies (docs/operations.md "Upgrades"), from the versions the
 * members published with their timing ({@link TimingPublisher}, {@code MemberTiming.max_entry_version}): the
 * smallest among the voters, this node counted as the version it applies itself. A voter that published
 * nothing, or runs a build from before the field, counts as version 1: during a rolling upgrade the cluster keeps
 * writing version 1 until every voter runs the new build and has said so.
 */
public final class VoterFormats implements EntryFormat {
  private final String self;
  private final int own;
  private final Supplier<Set<String>> voters;
  private final ReplicaView replica;

  /**
   * @param self this node's id
   * @param own the highest version this node applies ({@link EntryCodec#MAX_VERSION} but in the rolling-upgrade
   *     test, where a node plays an older build)
   * @param voters ids of the voters of the current configuration, old and new during a change
   *     ({@link LocalDivision#voterIds})
   * @param replica this node's replicated state, which holds the published versions
   */
  public VoterFormats(String self, int own, Supplier<Set<String>> voters, ReplicaView replica) {
    this.self = self;
    this.own = own;
    this.voters = voters;
    this.replica = replica;
  }

  @Override
  public int writable() {
    Set<String> ids = voters.get();
    if (ids.isEmpty()) {
      return EntryCodec.VERSION;
    }
    Map<String, MemberTiming> published = replica.read(txn -> txn.memberTimings());
    int min = Math.min(own, EntryCodec.MAX_VERSION);
    for (String id : ids) {
      if (id.equals(self)) {
        continue;
      }
      MemberTiming t = published.get(id);
      min = Math.min(min, t == null ? EntryCodec.VERSION : Math.max(EntryCodec.VERSION, t.getMaxEntryVersion()));
    }
    return min;
  }
}
