package io.regent.server.ratis;

import io.regent.server.confirm.LeadershipLease;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeerId;

/** A local Ratis division for {@link RatisProposer}'s tests: what it was handed, and how it answers. */
final class FakeDivision {
  /** A node that is not its ready leader: every entry goes through the Ratis clients. */
  static final LocalSubmission NOT_LEADER = new LocalSubmission(request -> {
    throw new AssertionError("a node that is not the ready leader submitted locally");
  }, RaftPeerId.valueOf("n1"), leadership(-1));

  /** The requests handed to the division, in order. */
  final List<RaftClientRequest> requests = new ArrayList<>();
  /** The division of a ready leader in term 2, answering each request with {@code answer}. */
  final LocalSubmission submission;

  FakeDivision(Function<RaftClientRequest, CompletableFuture<RaftClientReply>> answer) {
    submission = new LocalSubmission(request -> {
      requests.add(request);
      return answer.apply(request);
    }, RaftPeerId.valueOf("n1"), leadership(2));
  }

  private static LeadershipLease.Leadership leadership(long readyTerm) {
    return new LeadershipLease.Leadership() {
      @Override
      public long readyTerm() {
        return readyTerm;
      }

      @Override
      public long currentTerm() {
        return Math.max(readyTerm, 1);
      }
    };
  }
}
