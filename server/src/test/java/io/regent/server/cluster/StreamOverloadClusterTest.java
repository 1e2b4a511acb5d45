package io.regent.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.GroupWatchResponse;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.ObserveResponse;
import io.regent.client.GroupClient;
import io.regent.client.RegentClient;
import io.regent.server.ratis.RaftSetup;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many Group.Watch and Observe streams on every node of a 3-node cluster whose blocking pools are full (issue 22,
 * item 3): the deliveries the pools refuse end the streams with RESOURCE_EXHAUSTED and the index to resume
 * after, a campaign waiting meanwhile is still told it was elected, and every node stays up — before, the
 * first refused Group.Watch drain threw out of apply and Ratis closed the server on every replica.
 */
@Tag("cluster")
class StreamOverloadClusterTest {
  static final int STREAMS_PER_KIND_PER_NODE = 20;

  @TempDir
  Path dir;

  @Test
  void refusedDeliveriesEndTheStreamsWithAResumeIndexAndEveryNodeStaysUp() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (LocalCluster cluster = LocalCluster.start(3, dir)) {
      cluster.awaitLeader();
      RegentClient writer = cluster.client();
      GroupClient groups = new GroupClient(writer);
      long holder = writer.leases().grant(600_000);
      long waiter = writer.leases().grant(600_000);
      groups.join("g", "m0", 4, holder);
      List<Stream> streams = new ArrayList<>();
      for (int i = 0; i < cluster.size(); i++) {
        RegentClient local = cluster.clientOf(i);
        GroupClient localGroups = new GroupClient(local);
        for (int s = 0; s < STREAMS_PER_KIND_PER_NODE; s++) {
          Stream w = new Stream();
          localGroups.watch("g", "m0", 0, w.observer(GroupWatchResponse::getIndex));
          Stream o = new Stream();
          local.elections().observe("jobs", 0, o.observer(ObserveResponse::getIndex));
          streams.add(w);
          streams.add(o);
        }
      }
      await().atMost(Duration.ofMinutes(1)).until(() -> streams.stream().allMatch(s -> s.lastIndex.get() > 0));
      LeaderKey held = writer.elections().campaign("jobs", holder, ByteString.copyFromUtf8("first"));
      CompletableFuture<LeaderKey> queued = CompletableFuture.supplyAsync(() ->
          writer.elections().campaign("jobs", waiter, ByteString.copyFromUtf8("second")));
      await().atMost(Duration.ofMinutes(1)).until(
          () -> writer.leases().timeToLive(waiter).getNamesList().contains("jobs"));

      for (int i = 0; i < cluster.size(); i++) {
        saturate(cluster.node(i).executors().blocking(), release);
      }
      // the waiter's election and both ownership events, on every replica's apply thread
      writer.elections().resign(held);
      groups.join("g", "m1", 0, waiter); // a group change on every replica's apply thread

      assertThat(queued.get(1, TimeUnit.MINUTES)).extracting(LeaderKey::getLease).isEqualTo(waiter);
      await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> assertThat(streams).allSatisfy(s -> {
        assertThat(s.error.get()).as("the stream ended").isNotNull();
        Status status = Status.fromThrowable(s.error.get());
        assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(status.getDescription()).contains("resume with --after " + s.lastIndex.get());
      }));
      release.countDown();
      for (int i = 0; i < cluster.size(); i++) {
        assertThat(alive(cluster, i)).as("node %d's Raft division runs", i).isTrue();
        assertThat(cluster.clientOf(i)
            .elections().leader("jobs")).get().extracting(LeaderKey::getLease).isEqualTo(waiter);
      }
    } finally {
      release.countDown();
    }
  }

  /** Fills {@code pool}: each of its threads waits for {@code release}, then its queue takes no-ops until it refuses. */
  private static void saturate(ExecutorService pool, CountDownLatch release) throws InterruptedException {
    int threads = ((ThreadPoolExecutor) pool).getMaximumPoolSize();
    CountDownLatch busy = new CountDownLatch(threads);
    for (int t = 0; t < threads; t++) {
      pool.execute(() -> {
        busy.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    busy.await(); // every thread held: what is queued now stays queued
    try {
      while (true) {
        pool.execute(() -> { });
      }
    } catch (RejectedExecutionException full) {
      // full: what the node submits from now on is refused until release
    }
  }

  private static boolean alive(LocalCluster cluster, int i) throws IOException {
    return cluster.node(i).raft().getDivision(RaftSetup.GROUP_ID).getInfo().isAlive();
  }

  /** One stream as its client sees it: the index of the last message and the error it ended with. */
  static final class Stream {
    final AtomicLong lastIndex = new AtomicLong();
    final AtomicReference<Throwable> error = new AtomicReference<>();

    <T> StreamObserver<T> observer(ToLongFunction<T> index) {
      return new StreamObserver<>() {
        @Override
        public void onNext(T value) {
          lastIndex.set(index.applyAsLong(value));
        }

        @Override
        public void onError(Throwable t) {
          error.set(t);
        }

        @Override
        public void onCompleted() {
        }
      };
    }
  }
}
