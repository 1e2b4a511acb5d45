package io.regent.server.etcd;

import io.etcd.jetcd.api.ResponseHeader;
import io.etcd.jetcd.api.WatchResponse;

/**
 * The Watch stream's answers without events, as etcd shapes them (docs/migrating.md "etcd's Watch"); each header is
 * the caller's, which never runs ahead of what the watcher was sent.
 */
final class WatchResponses {
  /** The watch id etcd answers with when it has no watcher to name: a refused create, a progress request. */
  static final long NO_WATCHER = -1;

  private WatchResponses() {
  }

  /** Watcher {@code id} was created. */
  static WatchResponse created(ResponseHeader header, long id) {
    return WatchResponse.newBuilder().setHeader(header).setWatchId(id).setCreated(true).build();
  }

  /** A create refused for {@code reason} (etcd's text): created and cancelled at once, with no watcher. */
  static WatchResponse refused(ResponseHeader header, String reason) {
    return WatchResponse.newBuilder().setHeader(header).setWatchId(NO_WATCHER).setCreated(true).setCanceled(true)
        .setCancelReason(reason).build();
  }

  /** Watcher {@code id} was cancelled at its client's request. */
  static WatchResponse cancelled(ResponseHeader header, long id) {
    return WatchResponse.newBuilder().setHeader(header).setWatchId(id).setCanceled(true).build();
  }

  /** Watcher {@code id} was due revisions no longer kept: cancelled, {@code oldest} the oldest revision kept. */
  static WatchResponse compacted(ResponseHeader header, long id, long oldest) {
    return WatchResponse.newBuilder().setHeader(header).setWatchId(id).setCanceled(true).setCompactRevision(oldest)
        .build();
  }

  /** Progress: watcher {@code id} (or every watcher: {@link #NO_WATCHER}) was sent all it is due up to the header. */
  static WatchResponse progress(ResponseHeader header, long id) {
    return WatchResponse.newBuilder().setHeader(header).setWatchId(id).build();
  }
}
