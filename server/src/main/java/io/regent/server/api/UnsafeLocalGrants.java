package io.regent.server.api;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.statemachine.proto.NameRecord;
import io.regent.statemachine.replica.ReplicaView;

/**
 * The Jepsen negative control, never for production: grants a name that this node's replica sees as free,
 * at once and without Raft, with a token made up from the local applied index. Two nodes (or two calls)
 * can then grant the same name at the same time with equal tokens, which the election and exclusivity
 * checkers must flag; a checker that stays green against this mode proves nothing.
 */
final class UnsafeLocalGrants {
  private final ReplicaView stateMachine;

  UnsafeLocalGrants(ReplicaView stateMachine) {
    this.stateMachine = stateMachine;
  }

  /** A fabricated grant when the local replica shows no holder, else {@code null} (take the safe path). */
  LeaderKey grant(String name, long lease, ByteString value) {
    return stateMachine.read(txn -> {
      NameRecord rec = txn.name(name);
      if (rec != null && rec.hasHolder()) {
        return null;
      }
      return LeaderKey.newBuilder().setName(name).setValue(value).setLease(lease)
          .setToken(txn.appliedIndex() + 1).build();
    });
  }
}
