package io.regent.server.etcd;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.Event;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.regent.statemachine.proto.KvEvent;
import java.util.Comparator;
import java.util.List;

/**
 * One watcher of a Watch stream (docs/migrating.md "etcd's Watch"): its key range as etcd reads a create request
 * (an empty key is {@code "\0"}, the smallest key; an empty {@code range_end} the key alone; {@code "\0"} every key
 * from {@code key} on; anything else [{@code key}, {@code range_end})), its filters, and the next revision whose
 * events it is due. Not thread-safe: its stream's drain alone touches it.
 */
final class Watcher {
  private static final ByteString ALL_FROM = ByteString.copyFrom(new byte[] {0});
  private static final Comparator<ByteString> ORDER = ByteString.unsignedLexicographicalComparator();
  /** {@code WatchCreateRequest.watch_id}'s field number in etcd's rpc.proto (3.4 on). */
  private static final int WATCH_ID_FIELD = 7;

  final long id;
  private final ByteString key;
  private final ByteString rangeEnd;
  private final boolean noPut;
  private final boolean noDelete;
  private final boolean prevKv;
  final boolean progressNotify;
  /** The next revision whose events are due: every event below it was sent (or filtered out). */
  long next;
  /** Whether a response with events went out since the last progress tick. */
  boolean sentSinceTick;

  /** A watcher {@code id} of {@code c}, due from revision {@code next}; the caller checked the range. */
  Watcher(long id, WatchCreateRequest c, long next) {
    this.id = id;
    this.key = key(c);
    this.rangeEnd = c.getRangeEnd();
    this.noPut = c.getFiltersList().contains(WatchCreateRequest.FilterType.NOPUT);
    this.noDelete = c.getFiltersList().contains(WatchCreateRequest.FilterType.NODELETE);
    this.prevKv = c.getPrevKv();
    this.progressNotify = c.getProgressNotify();
    this.next = next;
  }

  /**
   * Why etcd refuses the range of {@code c} ("mvcc: watcher range is empty": a {@code range_end} at or below the
   * key, other than {@code "\0"}), or {@code null}.
   */
  static String badRange(WatchCreateRequest c) {
    ByteString end = c.getRangeEnd();
    boolean empty = !end.isEmpty() && !end.equals(ALL_FROM) && ORDER.compare(key(c), end) >= 0;
    return empty ? "mvcc: watcher range is empty" : null;
  }

  /**
   * The {@code watch_id} a create request asks for (0: none, the stream picks one). etcd's field 7, which jetcd's
   * generated classes predate: read from the fields they keep unparsed; the last value wins, as in protobuf.
   */
  static long askedId(WatchCreateRequest c) {
    List<Long> ids = c.getUnknownFields().getField(WATCH_ID_FIELD).getVarintList();
    return ids.isEmpty() ? 0 : ids.get(ids.size() - 1);
  }

  /** The event as this watcher sends it, or {@code null} when its range or filters leave it out. */
  Event visible(KvEvent e) {
    if (e.getDelete() ? noDelete : noPut) {
      return null;
    }
    ByteString k = e.getKv().getKey();
    boolean within = rangeEnd.isEmpty() ? k.equals(key)
        : ORDER.compare(k, key) >= 0 && (rangeEnd.equals(ALL_FROM) || ORDER.compare(k, rangeEnd) < 0);
    if (!within) {
      return null;
    }
    Event.Builder out = Event.newBuilder().setType(e.getDelete() ? Event.EventType.DELETE : Event.EventType.PUT)
        .setKv(KvResponses.keyValue(e.getKv()));
    if (prevKv && e.hasPrevKv()) {
      out.setPrevKv(KvResponses.keyValue(e.getPrevKv()));
    }
    return out.build();
  }

  private static ByteString key(WatchCreateRequest c) {
    return c.getKey().isEmpty() ? ALL_FROM : c.getKey();
  }
}
