package io.regent.server.rpc;

import java.util.Locale;

/**
 * What a permissions rule may grant (docs/security.md), and what a method needs ({@link MethodRules}): the
 * words of {@code regent server --permissions FILE}, parsed by {@code io.regent.server.security.Permissions}.
 */
public enum Right {
  CAMPAIGN, LOCK, READ, LEASE, MEMBER,
  /** Writes to etcd's keyspace on the etcd port (docs/migrating.md "etcd's KV"). */
  KV;

  /** The word used in the file. */
  public String word() {
    return name().toLowerCase(Locale.ROOT);
  }
}
