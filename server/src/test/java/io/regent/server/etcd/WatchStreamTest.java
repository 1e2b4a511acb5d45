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
import io.grpc.stub.StreamObserver;
import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.kv.KvRules;
import io.regent.statemachine.proto.KvCompact;
import io.regent.statemachine.proto.KvPut;
import io.regent.server.ratis.StoreReplica;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.RegentStore;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Watch stream on a bare store whose entries the test applies itself (docs/migrating.md "etcd's Watch"): the
 * progress tick, which the test fires in place of etcd's ten minutes, tells only the watchers that had no event
 * since the last one; a snapshot install, with no KV_CHANGED, still has the stream read the history, and a watcher
 * whose revisions the installed state no longer keeps is cancelled with the compact revision.
 */
class WatchStreamTest {
  @TempDir
  Path dir;
  RegentStore store;
  final EventHub hub = new EventHub(16);
  final ExecutorService blocking = Executors.newSingleThreadExecutor();
  final TickOnDemand timers = new TickOnDemand();
  EtcdGateway gateway;
  ManagedChannel channel;
  final BlockingQueue<WatchResponse> responses = new LinkedBlockingQueue<>();
  StreamObserver<WatchRequest> stream;
  long applied;

  @BeforeEach
  void start() throws Exception {
    store = RegentStore.open(dir);
    ReplicaView replica = StoreReplica.of(store, hub);
    EtcdKv node = new EtcdKv(entry -> new CompletableFuture<>(), () -> 5, null, replica, blocking, timers);
    gateway = TestGateways.start(() -> null, node);
    channel = Grpc.newChannelBuilder("127.0.0.1:" + gateway.port(), InsecureChannelCredentials.create()).build();
    stream = WatchGrpc.newStub(channel).watch(new StreamObserver<>() {
      @Override
      public void onNext(WatchResponse r) {
        responses.add(r);
      }

      @Override
      public void onError(Throwable t) {
      }

      @Override
      public void onCompleted() {
      }
    });
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    gateway.close();
    blocking.shutdownNow();
    timers.shutdownNow();
    store.close();
  }

  private static ByteString b(String s) {
    return ByteString.copyFrom(s, StandardCharsets.UTF_8);
  }

  /** Applies a put of {@code key} as the next entry and publishes its events, as a replica's apply does. */
  private long put(String key) {
    long index = ++applied;
    List<ChangeEvent> events = new ArrayList<>();
    store.write(txn -> {
      new KvRules(txn, index, events).put(KvPut.newBuilder().setKey(b(key)).setValue(b("v")).build());
      txn.setAppliedIndex(index);
      return null;
    });
    hub.publish(index, events);
    return index;
  }

  private void create(String key, long from) {
    stream.onNext(WatchRequest.newBuilder().setCreateRequest(WatchCreateRequest.newBuilder().setKey(b(key))
        .setStartRevision(from).setProgressNotify(true)).build());
  }

  private WatchResponse next() throws InterruptedException {
    WatchResponse r = responses.poll(30, TimeUnit.SECONDS);
    assertThat(r).as("a response within 30 s").isNotNull();
    return r;
  }

  @Test
  void aProgressTickTellsOnlyTheWatchersThatHadNoEvent() throws Exception {
    put("other");
    create("a", 0);
    long a = next().getWatchId();
    create("b", 0);
    long b = next().getWatchId();
    long written = put("a");
    assertThat(next().getEventsList()).extracting(e -> e.getKv().getModRevision()).containsExactly(written);

    timers.tick();
    WatchResponse first = next();
    assertThat(first.getWatchId()).as("only b was idle").isEqualTo(b);
    assertThat(first.getEventsList()).isEmpty();
    assertThat(first.getHeader().getRevision()).isEqualTo(written);

    timers.tick();
    assertThat(List.of(next().getWatchId(), next().getWatchId())).as("now both were").containsExactly(a, b);
  }

  @Test
  void aSnapshotInstallHasTheStreamReadTheHistoryAndCancelWhatItNoLongerKeeps() throws Exception {
    put("k");
    create("k", 3); // a future revision: it waits
    assertThat(next().getCreated()).isTrue();
    // entries 2..4 arrive in an installed snapshot, not as applies: no KV_CHANGED is published for them, and
    // entry 4's compaction drops revision 3, the watcher's start
    for (long index = 2; index <= 4; index++) {
      long at = index;
      store.write(txn -> {
        KvRules rules = new KvRules(txn, at, new ArrayList<>());
        rules.put(KvPut.newBuilder().setKey(b("k")).setValue(b("v" + at)).build());
        if (at == 4) {
          rules.compact(KvCompact.newBuilder().setRevision(at).build());
        }
        txn.setAppliedIndex(at);
        return null;
      });
    }
    store.read(txn -> {
      hub.installed(txn);
      return null;
    });
    WatchResponse r = next();
    assertThat(r.getCanceled()).isTrue();
    assertThat(r.getCompactRevision()).as("the oldest revision kept").isEqualTo(4);
    assertThat(r.getEventsList()).isEmpty();
  }
}
