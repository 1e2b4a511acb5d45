package io.regent.server.etcd;

import com.google.protobuf.ByteString;

/**
 * etcd's keys for an election's candidates and a lock's contenders, as etcd's {@code concurrency} package lays them
 * out (docs/migrating.md "etcd's Election and Lock"): under the prefix {@code NAME/}, one key {@code NAME/LEASE} per
 * lease, the lease id in lower-case hexadecimal. The same layout names a Regent name held by a lease in a {@code
 * LeaseTimeToLive} answer.
 */
final class EtcdKeys {
  private static final ByteString SLASH = ByteString.copyFromUtf8("/");
  private static final ByteString ALL_FROM = ByteString.copyFrom(new byte[] {0});

  private EtcdKeys() {
  }

  /** The key of lease {@code lease} in Regent name {@code name}. */
  static ByteString key(String name, long lease) {
    return key(ByteString.copyFromUtf8(name), lease);
  }

  /** The prefix of election or lock {@code name}: its bytes and {@code /}. */
  static ByteString prefix(ByteString name) {
    return name.concat(SLASH);
  }

  /** The key of lease {@code lease} in election or lock {@code name}. */
  static ByteString key(ByteString name, long lease) {
    return prefix(name).concat(ByteString.copyFromUtf8(Long.toHexString(lease)));
  }

  /**
   * The {@code range_end} that makes a range of every key starting with {@code prefix} (etcd's {@code
   * GetPrefixRangeEnd}): the prefix with its last byte below 0xff incremented and what follows it dropped; {@code
   * "\0"} (every key from the prefix on) when all its bytes are 0xff.
   */
  static ByteString rangeEnd(ByteString prefix) {
    for (int i = prefix.size() - 1; i >= 0; i--) {
      int b = prefix.byteAt(i) & 0xff;
      if (b < 0xff) {
        return prefix.substring(0, i).concat(ByteString.copyFrom(new byte[] {(byte) (b + 1)}));
      }
    }
    return ALL_FROM;
  }
}
