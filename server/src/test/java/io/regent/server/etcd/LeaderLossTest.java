package io.regent.server.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.etcd.jetcd.api.WatchGrpc;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.regent.server.membership.RaftLeader;
import io.regent.server.ratis.StoreReplica;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.store.RegentStore;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Watch stream opened with etcd's {@code hasleader} metadata on a node that then loses its leader
 * ({@link LeaderLoss}): the leader supplier is the injected signal and the gateway's looks, one per election
 * timeout, are fired by the test. The stream ends with UNAVAILABLE "etcdserver: no leader" at the third look in a
 * row without a leader, not before, and a leader seen in between starts the count again; a stream opened without
 * the metadata goes on.
 */
class LeaderLossTest {
  private static final RaftLeader LED = new RaftLeader("n2", "n1", 3);
  private static final RaftLeader ELECTION = new RaftLeader("n2", null, 4);

  @TempDir
  Path dir;
  private RegentStore store;
  private final EventHub hub = new EventHub(16);
  private final ExecutorService blocking = Executors.newSingleThreadExecutor();
  private final TickOnDemand timers = new TickOnDemand();
  private final AtomicReference<RaftLeader> leader = new AtomicReference<>(LED);
  private EtcdGateway gateway;
  private ManagedChannel channel;

  /** One Watch stream's responses and how it ended. */
  private static final class Stream implements StreamObserver<WatchResponse> {
    final BlockingQueue<WatchResponse> responses = new LinkedBlockingQueue<>();
    final CompletableFuture<Status> end = new CompletableFuture<>();
    StreamObserver<WatchRequest> requests;

    @Override
    public void onNext(WatchResponse r) {
      responses.add(r);
    }

    @Override
    public void onError(Throwable t) {
      end.complete(Status.fromThrowable(t));
    }

    @Override
    public void onCompleted() {
      end.complete(Status.OK);
    }

    /** Creates a watcher on {@code key} and waits for its answer: the stream is open on the server. */
    void watch(String key) throws InterruptedException {
      requests.onNext(WatchRequest.newBuilder().setCreateRequest(WatchCreateRequest.newBuilder()
          .setKey(ByteString.copyFromUtf8(key))).build());
      WatchResponse r = responses.poll(30, TimeUnit.SECONDS);
      assertThat(r).as("an answer within 30 s").isNotNull();
      assertThat(r.getCreated()).isTrue();
    }
  }

  @BeforeEach
  void start() throws Exception {
    store = RegentStore.open(dir);
    EtcdKv node = new EtcdKv(entry -> new CompletableFuture<>(), () -> 5, null, StoreReplica.of(store, hub),
        blocking, timers);
    gateway = TestGateways.start(leader::get, node);
    channel = Grpc.newChannelBuilder("127.0.0.1:" + gateway.port(), InsecureChannelCredentials.create()).build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    gateway.close();
    blocking.shutdownNow();
    timers.shutdownNow();
    store.close();
  }

  private Stream open(boolean requireLeader) {
    WatchGrpc.WatchStub stub = WatchGrpc.newStub(channel);
    if (requireLeader) {
      Metadata md = new Metadata();
      md.put(Metadata.Key.of("hasleader", Metadata.ASCII_STRING_MARSHALLER), "true");
      stub = stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md));
    }
    Stream s = new Stream();
    s.requests = stub.watch(s);
    return s;
  }

  private void looks(int n) {
    for (int i = 0; i < n; i++) {
      timers.tick();
    }
  }

  @Test
  void aStreamThatRequiresALeaderEndsWithEtcdsTextAtTheThirdLookWithoutOne() throws Exception {
    Stream required = open(true);
    Stream plain = open(false);
    required.watch("a");
    plain.watch("a");

    leader.set(ELECTION);
    looks(LeaderLoss.CHECKS - 1);
    required.watch("b"); // still served: an election may end within a few timeouts
    leader.set(LED);
    looks(1); // a leader again: the count starts over
    leader.set(ELECTION);
    looks(LeaderLoss.CHECKS - 1);
    required.watch("c");

    looks(1);
    Status end = required.end.get(30, TimeUnit.SECONDS);
    assertThat(end.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(end.getDescription()).isEqualTo("etcdserver: no leader");
    plain.watch("b"); // the stream that did not ask for a leader is served on
    assertThat(plain.end).isNotDone();
  }

  @Test
  void aNodeWithoutALeaderRefusesANewStreamAndAStreamOpenedOnceOneIsBackIsServed() throws Exception {
    Stream required = open(true);
    required.watch("a");
    leader.set(null); // a node whose Raft server is down knows no leader either
    looks(LeaderLoss.CHECKS);
    assertThat(required.end.get(30, TimeUnit.SECONDS).getDescription()).isEqualTo("etcdserver: no leader");

    Stream refused = open(true);
    refused.requests.onNext(WatchRequest.getDefaultInstance());
    assertThat(refused.end.get(30, TimeUnit.SECONDS).getDescription()).isEqualTo("etcdserver: no leader");
    leader.set(LED);
    Stream again = open(true);
    again.watch("a");
    looks(LeaderLoss.CHECKS); // a leader known: nothing ends
    again.watch("b");
    assertThat(again.end).isNotDone();
  }
}
