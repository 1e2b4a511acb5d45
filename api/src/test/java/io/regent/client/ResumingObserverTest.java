package io.regent.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.regent.api.v1.ElectionGrpc;
import io.regent.api.v1.ObserveRequest;
import io.regent.api.v1.ObserveResponse;
import io.regent.api.v1.ObserveResponse.Kind;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ResumingObserver} against two fake nodes on loopback: an entry that changes the name twice (RESIGNED A,
 * ELECTED B) reaches the listener whole, and a stream reopened after the first of them resumes after (index,
 * ordinal), so the second is neither skipped nor delivered twice (docs/api.md, Observe).
 */
class ResumingObserverTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final List<Server> servers = new CopyOnWriteArrayList<>();
  private RegentClient client;

  /** A fake node whose Observe does what {@code serve} says, and records each request. */
  private String node(List<ObserveRequest> requests, BiConsumer<ObserveRequest, StreamObserver<ObserveResponse>> serve)
      throws Exception {
    Server s = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new ElectionGrpc.ElectionImplBase() {
          @Override
          public void observe(ObserveRequest req, StreamObserver<ObserveResponse> obs) {
            requests.add(req);
            serve.accept(req, obs);
          }
        }).build().start();
    servers.add(s);
    return "127.0.0.1:" + s.getPort();
  }

  private static ObserveResponse event(Kind kind, long index, int ordinal) {
    return ObserveResponse.newBuilder().setKind(kind).setName("jobs").setIndex(index).setOrdinal(ordinal).build();
  }

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    servers.forEach(Server::shutdownNow);
  }

  @Test
  void theSecondEventOfOneEntryIsDeliveredAndAReopenedStreamResumesAfterTheFirst() throws Exception {
    List<ObserveRequest> first = new CopyOnWriteArrayList<>();
    List<ObserveRequest> second = new CopyOnWriteArrayList<>();
    String a = node(first, (req, obs) -> {
      obs.onNext(event(Kind.CURRENT, 4, 0));
      obs.onNext(event(Kind.RESIGNED, 5, 1));
      obs.onError(Status.UNAVAILABLE.withDescription("node going away").asRuntimeException());
    });
    String b = node(second, (req, obs) -> {
      obs.onNext(event(Kind.RESIGNED, 5, 1)); // a node that resumes from less: a repeat, dropped
      obs.onNext(event(Kind.ELECTED, 5, 2));
      obs.onNext(event(Kind.RESIGNED, 6, 1));
      obs.onNext(event(Kind.ELECTED, 6, 2));
    });
    client = RegentClient.builder().endpoints(List.of(a, b)).discoverEndpoints(false).build();
    List<ObserveResponse> got = new CopyOnWriteArrayList<>();
    try (ResumingObserver o = ResumingObserver.start(client, "jobs", 0, got::add)) {
      await().atMost(WAIT).until(() -> got.size() >= 5);
      assertThat(got).extracting(ObserveResponse::getKind, ObserveResponse::getIndex, ObserveResponse::getOrdinal)
          .containsExactly(Tuple.tuple(Kind.CURRENT, 4L, 0), Tuple.tuple(Kind.RESIGNED, 5L, 1),
              Tuple.tuple(Kind.ELECTED, 5L, 2), Tuple.tuple(Kind.RESIGNED, 6L, 1), Tuple.tuple(Kind.ELECTED, 6L, 2));
      assertThat(second).singleElement().satisfies(r -> {
        assertThat(r.getAfterIndex()).isEqualTo(5);
        assertThat(r.getAfterOrdinal()).as("after the first event of entry 5").isEqualTo(1);
      });
      assertThat(o.lastIndex()).isEqualTo(6);
    }
  }
}
