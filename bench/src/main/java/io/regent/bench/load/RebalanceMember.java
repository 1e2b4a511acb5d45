package io.regent.bench.load;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.GroupWatchResponse;
import io.regent.api.v1.PartitionToken;
import io.regent.client.GroupClient;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.LongConsumer;

/**
 * One simulated member of the {@code rebalance} workload: its lease, its Watch stream and its latest view.
 * It releases at once every partition it is asked to give up (a member with nothing to finish), and notes
 * when its stream first shows an assignment above a mark (the fan-out of a change).
 */
final class RebalanceMember {
  /** Pause after a failed release before the latest view is looked at again, ms. */
  private static final long RETRY_PAUSE_MS = 200;

  final String id;
  /** The member's lease (set once its join with a TTL answered, for a member that joins that way). */
  volatile long lease;
  private final GroupClient groups;
  private final String group;
  private final Executor releasers;
  private final LongConsumer released;
  private final Runnable changed;
  private volatile GroupWatchResponse view = GroupWatchResponse.getDefaultInstance();
  private volatile Runnable cancel = () -> { };
  /** Partitions whose release was sent and not answered yet: a newer view must not send them again. */
  private final Set<Integer> releasing = ConcurrentHashMap.newKeySet();
  private volatile long mark = Long.MAX_VALUE;
  private volatile long seenAboveMark;
  /** Set when a view after a joined one says the member is no longer in the group: its lease ended. */
  private volatile boolean lost;
  private volatile boolean stopped;
  private final BiConsumer<String, Throwable> streamEnded;

  /**
   * @param released gets the index of every release entry this member's calls produced
   * @param changed runs after every new view and every answered release
   * @param streamEnded told of each end of the member's stream (member id, error or null), before it is reopened
   */
  RebalanceMember(String id, long lease, GroupClient groups, String group, Executor releasers, LongConsumer released,
                  Runnable changed, BiConsumer<String, Throwable> streamEnded) {
    this.streamEnded = streamEnded;
    this.id = id;
    this.lease = lease;
    this.groups = groups;
    this.group = group;
    this.releasers = releasers;
    this.released = released;
    this.changed = changed;
  }

  /** Opens the member's Watch stream (from the current assignment on). */
  void watch() {
    cancel = groups.watch(group, id, 0, new StreamObserver<>() {
      @Override
      public void onNext(GroupWatchResponse r) {
        if (r.getJoined() && r.getIndex() > mark && seenAboveMark == 0) {
          seenAboveMark = System.nanoTime();
        }
        lost |= view.getJoined() && !r.getJoined();
        view = r;
        releaseAsked(r);
        changed.run();
      }

      @Override
      public void onError(Throwable t) {
        rewatch(t);
      }

      @Override
      public void onCompleted() {
        rewatch(null);
      }
    });
  }

  /** A stream that ended (the node is overloaded or stopped) is opened again after a pause, unless stopped. */
  private void rewatch(Throwable why) {
    if (stopped) {
      return;
    }
    streamEnded.accept(id, why);
    try {
      releasers.execute(() -> {
        try {
          Thread.sleep(RETRY_PAUSE_MS);
          if (!stopped) {
            watch();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    } catch (RejectedExecutionException e) {
      // the run is over
    }
  }

  private void releaseAsked(GroupWatchResponse r) {
    if (r.getReleaseCount() == 0) {
      return;
    }
    Set<Integer> asked = Set.copyOf(r.getReleaseList());
    Map<Integer, Long> tokens = new TreeMap<>();
    for (PartitionToken p : r.getOwnedList()) {
      if (asked.contains(p.getPartition()) && releasing.add(p.getPartition())) {
        tokens.put(p.getPartition(), p.getToken());
      }
    }
    if (tokens.isEmpty()) {
      return;
    }
    try {
      releasers.execute(() -> release(tokens));
    } catch (RejectedExecutionException e) {
      releasing.removeAll(tokens.keySet()); // the run is over
    }
  }

  private void release(Map<Integer, Long> tokens) {
    boolean failed = false;
    try {
      released.accept(groups.release(group, tokens));
    } catch (StatusRuntimeException e) {
      // A move undone meanwhile (FAILED_PRECONDITION, all or nothing), or a busy or failing-over cluster. A newer
      // view may have come during the call and skipped these partitions as in flight: look at the latest view
      // again after a pause (at once would only add load, or repeat a refusal the stream has not shown yet).
      failed = true;
    } finally {
      releasing.removeAll(tokens.keySet());
      changed.run();
    }
    if (failed) {
      try {
        Thread.sleep(RETRY_PAUSE_MS);
        releaseAsked(view);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Whether the member's lease ended while it was in the group (renewals too slow for the TTL). */
  boolean lost() {
    return lost;
  }

  /** From now on, notes the first time the stream shows the member joined, as read above {@code index}. */
  void markAbove(long index) {
    seenAboveMark = 0;
    mark = index;
  }

  /** When the stream first showed an assignment above the mark ({@link System#nanoTime}), or 0: not yet. */
  long seenAboveMark() {
    return seenAboveMark;
  }

  GroupWatchResponse view() {
    return view;
  }

  /** Whether a release of this member is still unanswered. */
  boolean releasing() {
    return !releasing.isEmpty();
  }

  /** Ends the Watch stream for good. */
  void stop() {
    stopped = true;
    cancel.run();
  }
}
