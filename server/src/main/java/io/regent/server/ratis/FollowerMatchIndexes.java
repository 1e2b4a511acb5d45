package io.regent.server.ratis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.server.DivisionInfo;

/**
 * Each follower's match index as the local Ratis division knows it while it leads. Ratis 3.3.0 gives the ids
 * ({@code RoleInfoProto}'s leader info) and the match indexes ({@code DivisionInfo.getFollowerMatchIndices}) in two
 * calls, each walking the leader's log appenders in the same order; a membership change between them could pair an
 * index with the wrong id, so the ids are read before and after and the reading is kept only when they agree.
 */
final class FollowerMatchIndexes {
  private static final int ATTEMPTS = 3;

  private FollowerMatchIndexes() {
  }

  /**
   * The match index of every follower (voters and learners), by id, in the leader's order; null when
   * {@code info} is not the leader's, or the followers kept changing during {@value #ATTEMPTS} readings.
   */
  static Map<String, Long> of(DivisionInfo info) {
    for (int i = 0; i < ATTEMPTS; i++) {
      List<String> before = followerIds(info.getRoleInfoProto());
      long[] match = info.getFollowerMatchIndices();
      List<String> after = followerIds(info.getRoleInfoProto());
      if (before == null || after == null || match == null) {
        return null; // not the leader
      }
      if (before.equals(after) && match.length == before.size()) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (int f = 0; f < match.length; f++) {
          out.put(before.get(f), match[f]);
        }
        return out;
      }
    }
    return null;
  }

  private static List<String> followerIds(RoleInfoProto role) {
    if (role.getRole() != RaftPeerRole.LEADER || !role.hasLeaderInfo()) {
      return null;
    }
    List<String> ids = new ArrayList<>();
    for (ServerRpcProto f : role.getLeaderInfo().getFollowerInfoList()) {
      ids.add(f.getId().getId().toStringUtf8());
    }
    return ids;
  }
}
