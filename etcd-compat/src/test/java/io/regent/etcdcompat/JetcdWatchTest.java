package io.regent.etcdcompat;

import static io.regent.etcdcompat.Jetcd.bytes;
import static io.regent.etcdcompat.Jetcd.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.kv.PutResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * jetcd's Watch client on Regent's keyspace through a follower's etcd port (docs/migrating.md "etcd's Watch"): put
 * and delete events in order with their revisions, from a past start revision and then live; a prefix; prev_kv;
 * a start revision in the future that waits; the filters; a start below the compaction point cancelled with the
 * compact revision; a catch-up longer than one read, with no gap. Cancels, ids, progress and bad input on one raw
 * stream: {@link EtcdWatchStreamTest}. Keys under {@code jetcd-watch/} (the module's cluster is shared).
 */
@ExtendWith(EtcdCompatCluster.Shared.class)
@Tag("cluster")
class JetcdWatchTest {
  static Client client;
  static KV kv;
  static Watch watch;

  @BeforeAll
  static void start(EtcdCompatCluster cluster) {
    client = Client.builder().endpoints("http://" + cluster.followerEndpoint()).build();
    kv = client.getKVClient();
    watch = client.getWatchClient();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
  }

  /** What one watcher received: its responses with events, and how it ended. */
  static final class Seen implements Watch.Listener {
    final List<WatchResponse> responses = new CopyOnWriteArrayList<>();
    final CompletableFuture<Throwable> error = new CompletableFuture<>();

    @Override
    public void onNext(WatchResponse r) {
      if (!r.getEvents().isEmpty()) {
        responses.add(r);
      }
    }

    @Override
    public void onError(Throwable t) {
      error.complete(t);
    }

    @Override
    public void onCompleted() {
    }

    List<WatchEvent> events() {
      return responses.stream().flatMap(r -> r.getEvents().stream()).toList();
    }

    /** Waits until {@code n} events came. */
    List<WatchEvent> atLeast(int n) {
      await().atMost(Duration.ofSeconds(Jetcd.WAIT_S)).until(() -> events().size() >= n || error.isDone());
      assertThat(error).as("the watcher failed").isNotDone();
      return events();
    }
  }

  private static long put(String key, String value) throws Exception {
    return get(kv.put(bytes(key), bytes(value))).getHeader().getRevision();
  }

  @Test
  void putAndDeleteEventsComeInOrderFromAPastRevisionThenLive() throws Exception {
    long first = put("jetcd-watch/k", "1");
    long second = put("jetcd-watch/k", "2");
    long deleted = get(kv.delete(bytes("jetcd-watch/k"))).getHeader().getRevision();
    Seen seen = new Seen();
    try (Watch.Watcher w = watch.watch(bytes("jetcd-watch/k"),
        WatchOption.builder().withRevision(first).withPrevKV(true).build(), seen)) {
      List<WatchEvent> past = seen.atLeast(3);
      assertThat(past).extracting(WatchEvent::getEventType).containsExactly(WatchEvent.EventType.PUT,
          WatchEvent.EventType.PUT, WatchEvent.EventType.DELETE);
      assertThat(past).extracting(e -> e.getKeyValue().getModRevision()).containsExactly(first, second, deleted);
      assertThat(past.get(1).getPrevKV().getValue()).as("prev_kv").isEqualTo(bytes("1"));
      assertThat(past.get(2).getPrevKV().getValue()).isEqualTo(bytes("2"));
      assertThat(past.get(2).getKeyValue().getKey()).isEqualTo(bytes("jetcd-watch/k"));

      long live = put("jetcd-watch/k", "3");
      WatchEvent next = seen.atLeast(4).get(3);
      assertThat(next.getKeyValue().getModRevision()).isEqualTo(live);
      assertThat(next.getKeyValue().getCreateRevision()).as("created again after the delete").isEqualTo(live);
      assertThat(seen.responses).allSatisfy(r -> assertThat(r.getHeader().getRevision())
          .as("a header never runs ahead of the events sent")
          .isGreaterThanOrEqualTo(r.getEvents().get(r.getEvents().size() - 1).getKeyValue().getModRevision()));
    }
  }

  @Test
  void aPrefixWatchSeesItsKeysAndTheEventsOfOneRevisionTogether() throws Exception {
    ByteSequence prefix = bytes("jetcd-watch/p/");
    long from = put("jetcd-watch/p/a", "1");
    put("jetcd-watch/q", "not in the prefix");
    long both = get(kv.txn().Then(Op.put(bytes("jetcd-watch/p/b"), bytes("2"), PutOption.DEFAULT),
        Op.put(bytes("jetcd-watch/p/c"), bytes("3"), PutOption.DEFAULT)).commit()).getHeader().getRevision();
    Seen seen = new Seen();
    try (Watch.Watcher w = watch.watch(prefix, WatchOption.builder().withRevision(from).withPrefix(prefix).build(),
        seen)) {
      assertThat(seen.atLeast(3)).extracting(e -> e.getKeyValue().getKey().toString())
          .containsExactly("jetcd-watch/p/a", "jetcd-watch/p/b", "jetcd-watch/p/c");
      assertThat(seen.responses).anySatisfy(r -> assertThat(r.getEvents())
          .extracting(e -> e.getKeyValue().getModRevision()).containsExactly(both, both));
    }
  }

  @Test
  void aStartRevisionInTheFutureWaitsForIt() throws Exception {
    long now = put("jetcd-watch/f", "0");
    long start = now + 5;
    Seen seen = new Seen();
    try (Watch.Watcher w = watch.watch(bytes("jetcd-watch/f"), WatchOption.builder().withRevision(start).build(),
        seen)) {
      long last;
      int i = 0;
      do {
        last = put("jetcd-watch/f", Integer.toString(++i));
      } while (last < start);
      long reached = last;
      await().atMost(Duration.ofSeconds(Jetcd.WAIT_S)).until(() -> seen.events().stream()
          .anyMatch(e -> e.getKeyValue().getModRevision() == reached));
      assertThat(seen.error).isNotDone();
      assertThat(seen.events()).extracting(e -> e.getKeyValue().getModRevision())
          .as("nothing before the start revision").allMatch(r -> r >= start);
    }
  }

  @Test
  void theFiltersLeaveOutPutsOrDeletes() throws Exception {
    ByteSequence key = bytes("jetcd-watch/filtered");
    long from = put("jetcd-watch/filtered", "1");
    get(kv.delete(key));
    Seen noPut = new Seen();
    Seen noDelete = new Seen();
    try (Watch.Watcher a = watch.watch(key, WatchOption.builder().withRevision(from).withNoPut(true).build(), noPut);
         Watch.Watcher b = watch.watch(key, WatchOption.builder().withRevision(from).withNoDelete(true).build(),
             noDelete)) {
      long again = put("jetcd-watch/filtered", "2");
      assertThat(noDelete.atLeast(2)).extracting(e -> e.getKeyValue().getModRevision()).containsExactly(from, again);
      assertThat(noPut.atLeast(1)).extracting(WatchEvent::getEventType).containsExactly(WatchEvent.EventType.DELETE);
    }
  }

  @Test
  void aStartBelowTheCompactionPointIsCancelledWithTheCompactRevision() throws Exception {
    long old = put("jetcd-watch/c", "1");
    put("jetcd-watch/c", "2");
    long point = put("jetcd-watch/c", "3");
    get(kv.compact(point));
    // a linearizable read through the follower: it has applied the compaction before the watchers start there
    get(kv.get(bytes("jetcd-watch/c")));
    Seen compacted = new Seen();
    Seen kept = new Seen();
    try (Watch.Watcher a = watch.watch(bytes("jetcd-watch/c"), WatchOption.builder().withRevision(old).build(),
        compacted);
         Watch.Watcher b = watch.watch(bytes("jetcd-watch/c"), WatchOption.builder().withRevision(point).build(),
             kept)) {
      Throwable cause = get(compacted.error);
      assertThat(cause).isInstanceOf(CompactedException.class);
      assertThat(((CompactedException) cause).getCompactedRevision()).isEqualTo(point);
      assertThat(compacted.events()).isEmpty();
      assertThat(kept.atLeast(1)).as("the compaction point itself is still served")
          .extracting(e -> e.getKeyValue().getModRevision()).containsExactly(point);
    }
  }

  /** More revisions than one read takes ({@code WatchStream.REVISIONS_PER_READ}, 256): several drains, no gap. */
  @Test
  void aLongCatchUpComesInOrderWithNoGap() throws Exception {
    int writes = 300;
    long from = put("jetcd-watch/long", "start");
    List<CompletableFuture<PutResponse>> puts = new ArrayList<>();
    for (int i = 0; i < writes; i++) {
      puts.add(kv.put(bytes("jetcd-watch/long"), bytes(Integer.toString(i))));
    }
    List<Long> revisions = new ArrayList<>(List.of(from));
    for (CompletableFuture<PutResponse> p : puts) {
      revisions.add(get(p).getHeader().getRevision());
    }
    Collections.sort(revisions);
    Seen seen = new Seen();
    try (Watch.Watcher w = watch.watch(bytes("jetcd-watch/long"), WatchOption.builder().withRevision(from).build(),
        seen)) {
      assertThat(seen.atLeast(writes + 1)).extracting(e -> e.getKeyValue().getModRevision())
          .as("every put once, in revision order").containsExactlyElementsOf(revisions);
      assertThat(seen.responses.size()).as("in several responses").isGreaterThan(1);
    }
  }
}
