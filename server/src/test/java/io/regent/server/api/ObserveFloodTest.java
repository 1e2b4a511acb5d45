package io.regent.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.ObserveRequest;
import io.regent.api.v1.ObserveResponse;
import io.regent.client.RegentClient;
import io.regent.server.cluster.LocalCluster;
import io.regent.server.limits.ServerLimits;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Thousands of Observe streams, half of them never reading, while a writer produces large events: the slow
 * streams are ended with RESOURCE_EXHAUSTED, the heap after GC stays far below what buffering every event
 * for every slow stream would take, and another client's calls keep succeeding.
 */
@Tag("cluster")
class ObserveFloodTest {
  static final int SLOW_CHANNELS = 3;
  static final int SLOW_STREAMS_PER_CHANNEL = 500;
  static final int FAST_STREAMS = 100;
  static final int VALUE_BYTES = 4 * 1024;
  static final int ROUNDS = 100;

  @TempDir
  Path dir;

  @Test
  void slowObserversAreCutOffAndMemoryStaysBoundedWhileOthersAreServed() throws Exception {
    // An observe buffer of 128 events: a never-reading stream (200 events sent, its flow-control window
    // absorbs ~15) overflows it; a reading stream starved of CPU on a loaded machine keeps a wide margin.
    ServerLimits limits = new ServerLimits(1 << 20, 1_000, 100, 1_000, 1_000, 10, 3_600_000, 10_000, 10_000,
        10_000, 128);
    List<ManagedChannel> channels = new ArrayList<>();
    try (LocalCluster cluster = LocalCluster.start(1, dir, c -> c.limits(limits));
         RegentClient writer = RegentClient.connect(cluster.endpoint(0));
         RegentClient bystander = RegentClient.connect(cluster.endpoint(0))) {
      cluster.awaitLeader();
      long before = heapAfterGc();
      String[] hostPort = cluster.endpoint(0).split(":");
      AtomicInteger exhausted = new AtomicInteger();
      AtomicInteger fastReceived = new AtomicInteger();
      AtomicInteger fastSubscribed = new AtomicInteger();
      List<ClientCallStreamObserver<ObserveRequest>> slowCalls = new java.util.concurrent.CopyOnWriteArrayList<>();
      for (int c = 0; c <= SLOW_CHANNELS; c++) {
        boolean slow = c < SLOW_CHANNELS;
        ManagedChannel ch = NettyChannelBuilder.forAddress(hostPort[0], Integer.parseInt(hostPort[1]))
            .usePlaintext().flowControlWindow(65_535).build();
        channels.add(ch);
        for (int s = 0; s < (slow ? SLOW_STREAMS_PER_CHANNEL : FAST_STREAMS); s++) {
          ElectionGrpc.newStub(ch).observe(ObserveRequest.newBuilder().setName("flood").build(),
              observer(slow, exhausted, fastReceived, fastSubscribed, slowCalls));
        }
      }
      // Observe calls are asynchronous: a stream sees events only from its subscription on (its CURRENT).
      await().atMost(Duration.ofMinutes(2)).until(() -> fastSubscribed.get() == FAST_STREAMS);
      long lease = writer.leases().grant(600_000);
      ByteString value = ByteString.copyFrom(new byte[VALUE_BYTES]);
      for (int i = 0; i < ROUNDS; i++) {
        LeaderKey k = writer.elections().campaign("flood", lease, value);
        writer.elections().resign(k);
        assertThat(bystander.elections().leader("other")).isEmpty();
      }
      await().atMost(Duration.ofMinutes(2)).untilAsserted(() ->
          assertThat(fastReceived.get()).isGreaterThanOrEqualTo(FAST_STREAMS * 2 * ROUNDS));
      long growth = heapAfterGc() - before;
      long unbounded = (long) SLOW_CHANNELS * SLOW_STREAMS_PER_CHANNEL * ROUNDS * VALUE_BYTES;
      assertThat(growth).as("heap growth vs %d bytes if slow streams were buffered", unbounded)
          .isLessThan(unbounded / 4);
      // A reader that resumes reading finds, after what was sent before it fell behind, the status saying so.
      slowCalls.forEach(call -> call.request(Integer.MAX_VALUE));
      await().atMost(Duration.ofMinutes(2)).untilAsserted(() ->
          assertThat(exhausted.get()).isEqualTo(SLOW_CHANNELS * SLOW_STREAMS_PER_CHANNEL));
      assertThat(bystander.leases().grant(600_000)).isPositive();
    } finally {
      channels.forEach(ManagedChannel::shutdownNow);
    }
  }

  /** A slow observer asks for nothing after its first message; a fast one counts its subscription and events. */
  static ClientResponseObserver<ObserveRequest, ObserveResponse> observer(
      boolean slow, AtomicInteger exhausted, AtomicInteger received, AtomicInteger subscribed,
      List<ClientCallStreamObserver<ObserveRequest>> slowCalls) {
    return new ClientResponseObserver<>() {
      @Override
      public void beforeStart(ClientCallStreamObserver<ObserveRequest> call) {
        if (slow) {
          call.disableAutoRequestWithInitial(1);
          slowCalls.add(call);
        }
      }

      @Override
      public void onNext(ObserveResponse value) {
        if (slow) {
          return;
        }
        if (value.getKind() == ObserveResponse.Kind.CURRENT) {
          subscribed.incrementAndGet();
        } else {
          received.incrementAndGet();
        }
      }

      @Override
      public void onError(Throwable t) {
        if (Status.fromThrowable(t).getCode() == Status.Code.RESOURCE_EXHAUSTED) {
          exhausted.incrementAndGet();
        }
      }

      @Override
      public void onCompleted() {
      }
    };
  }

  static long heapAfterGc() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
