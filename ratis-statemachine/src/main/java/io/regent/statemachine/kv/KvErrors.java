package io.regent.statemachine.kv;

/**
 * etcd's own descriptions of the KV refusals (its {@code rpctypes} errors), which etcd's clients match on: apply
 * answers with them, and the etcd port refuses bad input with them before proposing anything.
 */
public final class KvErrors {
  /** INVALID_ARGUMENT: a request without a key. */
  public static final String EMPTY_KEY = "etcdserver: key is not provided";
  /** INVALID_ARGUMENT: a put with {@code ignore_value} on a key that does not exist. */
  public static final String KEY_NOT_FOUND = "etcdserver: key not found";
  /** NOT_FOUND: a put attached to a lease that is not live. */
  public static final String LEASE_NOT_FOUND = "etcdserver: requested lease not found";
  /** OUT_OF_RANGE: a revision at or below the compaction point. */
  public static final String COMPACTED = "etcdserver: mvcc: required revision has been compacted";
  /** OUT_OF_RANGE: a revision past the current one. */
  public static final String FUTURE_REVISION = "etcdserver: mvcc: required revision is a future revision";

  private KvErrors() {
  }
}
