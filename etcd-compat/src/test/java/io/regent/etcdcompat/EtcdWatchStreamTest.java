package io.regent.etcdcompat;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.WatchCancelRequest;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.etcd.jetcd.api.WatchGrpc;
import io.etcd.jetcd.api.WatchProgressRequest;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One raw etcd Watch stream on a follower's etcd port (docs/migrating.md "etcd's Watch"), message by message: the
 * created response's id (asked for, or the stream's next) and a header no later than the start; etcd's answers to
 * a duplicate id and an empty range (created and cancelled at once, the stream going on); an empty key as etcd's
 * smallest key; a cancel after which the watcher hears nothing; progress answers whose header never runs ahead of
 * the events sent; a request with nothing in it ending the stream with INVALID_ARGUMENT. Keys under
 * {@code raw-watch/}.
 */
@ExtendWith(EtcdCompatCluster.Shared.class)
@Tag("cluster")
class EtcdWatchStreamTest {
  /** {@code WatchCreateRequest.watch_id} in etcd's rpc.proto, which jetcd's generated classes predate. */
  private static final int WATCH_ID_FIELD = 7;

  static ManagedChannel channel;
  static KVGrpc.KVBlockingStub kv;
  final BlockingQueue<WatchResponse> responses = new LinkedBlockingQueue<>();
  final CompletableFuture<Status> ended = new CompletableFuture<>();
  StreamObserver<WatchRequest> stream;

  @BeforeAll
  static void connect(EtcdCompatCluster cluster) {
    channel = Grpc.newChannelBuilder(cluster.followerEndpoint(), InsecureChannelCredentials.create()).build();
    kv = KVGrpc.newBlockingStub(channel);
  }

  @AfterAll
  static void disconnect() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  @BeforeEach
  void open() {
    stream = WatchGrpc.newStub(channel).watch(new StreamObserver<>() {
      @Override
      public void onNext(WatchResponse r) {
        responses.add(r);
      }

      @Override
      public void onError(Throwable t) {
        ended.complete(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        ended.complete(Status.OK);
      }
    });
  }

  @AfterEach
  void close() {
    if (!ended.isDone()) {
      stream.onCompleted();
    }
  }

  private static ByteString b(String s) {
    return ByteString.copyFrom(s, StandardCharsets.UTF_8);
  }

  private static long put(String key, String value) {
    return kv.withDeadlineAfter(Jetcd.WAIT_S, TimeUnit.SECONDS)
        .put(PutRequest.newBuilder().setKey(b(key)).setValue(b(value)).build()).getHeader().getRevision();
  }

  private WatchResponse next() throws InterruptedException {
    WatchResponse r = responses.poll(Jetcd.WAIT_S, TimeUnit.SECONDS);
    assertThat(r).as("a response within " + Jetcd.WAIT_S + " s").isNotNull();
    return r;
  }

  private void create(WatchCreateRequest.Builder c) {
    stream.onNext(WatchRequest.newBuilder().setCreateRequest(c).build());
  }

  private static WatchCreateRequest.Builder watching(String key, long from) {
    return WatchCreateRequest.newBuilder().setKey(b(key)).setStartRevision(from);
  }

  private static WatchCreateRequest.Builder asking(WatchCreateRequest.Builder c, long id) {
    return c.setUnknownFields(UnknownFieldSet.newBuilder()
        .addField(WATCH_ID_FIELD, UnknownFieldSet.Field.newBuilder().addVarint(id).build()).build());
  }

  @Test
  void aCreatedResponseCarriesTheIdAskedForOrTheNextAndAHeaderNoLaterThanTheStart() throws Exception {
    long from = put("raw-watch/id", "1");
    create(watching("raw-watch/id", from));
    WatchResponse first = next();
    assertThat(first.getCreated()).isTrue();
    assertThat(first.getWatchId()).as("etcd numbers a stream's watchers from 0").isZero();
    assertThat(first.getHeader().getRevision()).as("not ahead of the start").isLessThan(from);
    assertThat(next().getEventsList()).extracting(e -> e.getKv().getModRevision()).containsExactly(from);

    create(asking(watching("raw-watch/id", from), 7));
    WatchResponse asked = next();
    assertThat(asked.getCreated()).isTrue();
    assertThat(asked.getWatchId()).isEqualTo(7);
    assertThat(next().getWatchId()).as("its events").isEqualTo(7);

    create(asking(watching("raw-watch/id", 0), 7));
    WatchResponse duplicate = next();
    assertThat(duplicate.getCreated()).isTrue();
    assertThat(duplicate.getCanceled()).isTrue();
    assertThat(duplicate.getWatchId()).isEqualTo(-1);
    assertThat(duplicate.getCancelReason()).isEqualTo("mvcc: duplicate watch ID provided on the WatchStream");
  }

  @Test
  void anEmptyRangeIsRefusedAsEtcdDoesAndTheStreamGoesOn() throws Exception {
    for (String end : new String[] {"raw-watch/r", "raw-watch/a"}) {
      create(watching("raw-watch/r", 0).setRangeEnd(b(end)));
      WatchResponse refused = next();
      assertThat(refused.getCreated()).isTrue();
      assertThat(refused.getCanceled()).isTrue();
      assertThat(refused.getWatchId()).isEqualTo(-1);
      assertThat(refused.getCancelReason()).isEqualTo("mvcc: watcher range is empty");
    }
    long from = put("raw-watch/r", "1");
    // an empty key is etcd's smallest key, "\0": with range_end "\0", every key
    create(WatchCreateRequest.newBuilder().setRangeEnd(b("\0")).setStartRevision(from));
    WatchResponse created = next();
    assertThat(created.getWatchId()).as("the refusals took no id").isZero();
    assertThat(next().getEventsList().get(0).getKv().getModRevision()).isEqualTo(from);
  }

  @Test
  void aCancelledWatcherHearsNothingMore() throws Exception {
    long from = put("raw-watch/c", "1");
    create(watching("raw-watch/c", from));
    long id = next().getWatchId();
    assertThat(next().getEventsCount()).isEqualTo(1);
    stream.onNext(WatchRequest.newBuilder().setCancelRequest(WatchCancelRequest.newBuilder().setWatchId(id)).build());
    WatchResponse cancelled = next();
    assertThat(cancelled.getCanceled()).isTrue();
    assertThat(cancelled.getWatchId()).isEqualTo(id);

    long after = put("raw-watch/c", "2");
    create(watching("raw-watch/c", after));
    long other = next().getWatchId();
    // a stream's responses are in order and the older watcher's would come first: the newer one's event is the end
    WatchResponse seen = next();
    assertThat(seen.getWatchId()).isEqualTo(other);
    assertThat(seen.getEventsList()).extracting(e -> e.getKv().getModRevision()).containsExactly(after);
  }

  @Test
  void aProgressHeaderNeverRunsAheadOfTheEventsSent() throws Exception {
    long from = put("raw-watch/p", "1");
    create(watching("raw-watch/p", from));
    assertThat(next().getCreated()).isTrue();
    WatchRequest progress = WatchRequest.newBuilder().setProgressRequest(WatchProgressRequest.getDefaultInstance())
        .build();
    // this follower may not have applied the put yet: a progress answered before its event must say less than it
    stream.onNext(progress);
    boolean eventSeen = false;
    boolean progressSeen = false;
    while (!eventSeen || !progressSeen) {
      WatchResponse r = next();
      if (r.getEventsCount() > 0) {
        assertThat(r.getEventsList()).extracting(e -> e.getKv().getModRevision()).containsExactly(from);
        eventSeen = true;
      } else {
        assertThat(r.getWatchId()).as("etcd answers a progress request with watch id -1").isEqualTo(-1);
        boolean before = !eventSeen;
        assertThat(r.getHeader().getRevision()).as(before ? "before the event" : "after the event")
            .matches(rev -> before ? rev < from : rev >= from);
        progressSeen = true;
      }
    }
    stream.onNext(progress);
    WatchResponse after = next();
    assertThat(after.getEventsList()).isEmpty();
    assertThat(after.getHeader().getRevision()).isGreaterThanOrEqualTo(from);
  }

  @Test
  void aRequestWithNothingInItEndsTheStream() throws Exception {
    stream.onNext(WatchRequest.getDefaultInstance());
    Status status = ended.get(Jetcd.WAIT_S, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).contains("a watch request needs a create, cancel or progress request");
  }
}
