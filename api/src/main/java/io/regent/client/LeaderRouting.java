package io.regent.client;

import io.grpc.Metadata;
import java.util.Arrays;
import java.util.List;

/**
 * Which endpoint a {@link RegentClient}'s calls for the Raft leader start at: the leader that the replies'
 * {@link LeaderMetadata} name, found among the client's endpoints, unless that endpoint has just failed.
 *
 * <p>The leader of the highest term seen is kept (a hint of a lower term comes from a node that has not heard of
 * the new leader). An endpoint is known to reach the leader when a reply through it came from the leader's
 * member id ({@code regent-node}), which works through proxies and host aliases, or else when its address is
 * the leader's published API address ({@code regent-leader}). When the leader's endpoint fails (unreachable or
 * hung: the transport's UNAVAILABLE, DEADLINE_EXCEEDED; not the node's own refusal, {@link NodeRefusal}) it is
 * <em>suspect</em>: calls start at the client's current endpoint, as with no leader
 * known, until a hint names a leader of a new term, or a reply from the leader itself shows it answering again
 * — a paused leader is thus tried once, not by every call until the election. Thread-safe; {@link #start} and
 * {@link #observe} of a hint that changes nothing take no lock.
 */
final class LeaderRouting {
  /**
   * What one reply said about the leader.
   *
   * @param node member id of the node that answered, or null
   * @param term its Raft term
   * @param leaderId member id of the leader it knows in that term, or null (an election)
   * @param leaderApi the leader's published API address, or null
   */
  record Hint(String node, long term, String leaderId, String leaderApi) {
    /** The hint in {@code md}, or null when it has none (not a Regent node running Raft) or a malformed term. */
    static Hint of(Metadata md) {
      String t = md.get(LeaderMetadata.TERM);
      if (t == null) {
        return null;
      }
      long term;
      try {
        term = Long.parseLong(t);
      } catch (NumberFormatException e) {
        return null;
      }
      return new Hint(md.get(LeaderMetadata.NODE), term, md.get(LeaderMetadata.LEADER_ID),
          md.get(LeaderMetadata.LEADER));
    }
  }

  /** The leader as last learnt: {@code index} is its endpoint or -1, {@code suspect} whether it just failed. */
  private record State(long term, String leaderId, String leaderApi, int index, boolean suspect) {
  }

  private volatile State state = new State(Long.MIN_VALUE, null, null, -1, false);
  /** Member id that the last reply through endpoint i came from (null: none yet); replaced, never changed. */
  private volatile String[] nodes;
  private volatile List<String> addresses;

  /** @param addresses the client's endpoints, {@code host:port}, in order */
  LeaderRouting(List<String> addresses) {
    this.addresses = List.copyOf(addresses);
    this.nodes = new String[addresses.size()];
  }

  /**
   * The endpoint a call that wants the leader starts at: the leader's, when it is known, reached by an
   * endpoint and not suspect; else {@code current} (the client's order without a leader).
   */
  int start(int current) {
    State s = state;
    return s.index >= 0 && !s.suspect ? s.index : current;
  }

  /** The leader's endpoint that calls go to, or -1 when none (unknown, reached by no endpoint, or suspect). */
  int leader() {
    return start(-1);
  }

  /**
   * Takes the hint of a reply (an answer or a refusal) through endpoint {@code endpoint}.
   *
   * @return whether it named a term newer than any seen before (the membership may have changed with it)
   */
  boolean observe(int endpoint, Hint h) {
    State s = state;
    String[] ns = nodes;
    boolean nodeKnown = h.node() == null || (endpoint < ns.length && h.node().equals(ns[endpoint]));
    if (nodeKnown && (h.term() < s.term || (h.term() == s.term
        && (h.leaderId() == null || h.leaderId().equals(s.leaderId))
        && (h.leaderApi() == null || h.leaderApi().equals(s.leaderApi))
        && !(s.suspect && h.leaderId() != null && h.leaderId().equals(h.node()))))) {
      return false; // nothing new: the common case, lock-free
    }
    return learn(endpoint, h);
  }

  private synchronized boolean learn(int endpoint, Hint h) {
    if (h.node() != null && endpoint >= 0 && endpoint < nodes.length && !h.node().equals(nodes[endpoint])) {
      String[] ns = nodes.clone();
      ns[endpoint] = h.node();
      nodes = ns;
    }
    State s = state;
    boolean newTerm = h.term() > s.term;
    if (newTerm) {
      s = new State(h.term(), h.leaderId(), h.leaderApi(), -1, false);
    } else if (h.term() == s.term && h.leaderId() != null) {
      if (s.leaderId == null) {
        s = new State(s.term, h.leaderId(), h.leaderApi(), -1, false);
      } else if (h.leaderId().equals(s.leaderId)) {
        boolean fromLeader = h.leaderId().equals(h.node());
        s = new State(s.term, s.leaderId, h.leaderApi() != null ? h.leaderApi() : s.leaderApi, -1,
            s.suspect && !fromLeader);
      } // else two leaders in one term: impossible in Raft, ignored
    }
    state = resolve(s);
    return newTerm;
  }

  /**
   * Endpoint {@code endpoint} was unreachable or did not answer in time: when it is the leader's, calls start at
   * the client's current endpoint until a new leader or term is learnt or the leader answers again.
   */
  synchronized void failed(int endpoint) {
    State s = state;
    if (s.index == endpoint && !s.suspect) {
      state = new State(s.term, s.leaderId, s.leaderApi, s.index, true);
    }
  }

  /**
   * Endpoint {@code endpoint} answered a call: when it is the suspect leader's, calls start there again. A
   * keepalive stream's answers carry no hint (their stream's headers came at its start), so without this a leader
   * taken for failed while an answer was slow, under load, stayed suspect while it answered every keepalive.
   */
  void answered(int endpoint) {
    State s = state;
    if (s.suspect && s.index == endpoint) { // else nothing to change: the common case, lock-free
      clearSuspect(endpoint);
    }
  }

  private synchronized void clearSuspect(int endpoint) {
    State s = state;
    if (s.suspect && s.index == endpoint) {
      state = new State(s.term, s.leaderId, s.leaderApi, s.index, false);
    }
  }

  /** The client's endpoints after it learnt more (the list only grows: indexes stay valid). */
  synchronized void endpointsChanged(List<String> now) {
    addresses = List.copyOf(now);
    nodes = Arrays.copyOf(nodes, now.size());
    state = resolve(state);
  }

  /** Index of an endpoint whose last reply came from member {@code id}, or -1. */
  int endpointOf(String id) {
    String[] ns = nodes;
    for (int i = 0; i < ns.length; i++) {
      if (id.equals(ns[i])) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The leader as a hint (its id and published API address) when it is known and not suspect but no endpoint
   * reaches it — a client that discovers endpoints adds that address — else null.
   */
  Hint unreachedLeader() {
    State s = state;
    return s.index < 0 && !s.suspect && s.leaderId != null && s.leaderApi != null
        ? new Hint(null, s.term, s.leaderId, s.leaderApi) : null;
  }

  private State resolve(State s) {
    int index = s.leaderId == null ? -1 : endpointOf(s.leaderId);
    if (index < 0 && s.leaderApi != null) {
      index = addresses.indexOf(s.leaderApi);
    }
    return index == s.index ? s : new State(s.term, s.leaderId, s.leaderApi, index, s.suspect);
  }
}
