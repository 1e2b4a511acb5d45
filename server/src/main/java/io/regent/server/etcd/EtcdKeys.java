package io.regent.server.etcd;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;

/**
 * etcd's keys for an election's leader and a lock's owner, {@code NAME/LEASE} with the lease id in lower-case
 * hexadecimal (as etcd's concurrency package names them), and Regent's names, which are etcd's election and
 * lock names read as UTF-8.
 */
final class EtcdKeys {
  private EtcdKeys() {
  }

  /** The Regent name of etcd election or lock name {@code name}; Regent's API checks what a name may hold. */
  static String name(ByteString name) {
    return name.toString(StandardCharsets.UTF_8);
  }

  /** etcd's key of lease {@code lease} in {@code name}. */
  static ByteString key(String name, long lease) {
    return ByteString.copyFromUtf8(name + "/" + Long.toHexString(lease));
  }

  /** A key {@link #key} made, split back; INVALID_ARGUMENT for any other key. */
  static Parsed parse(ByteString key) {
    String k = key.toString(StandardCharsets.UTF_8);
    int slash = k.lastIndexOf('/');
    try {
      if (slash > 0) {
        return new Parsed(k.substring(0, slash), Long.parseUnsignedLong(k.substring(slash + 1), 16));
      }
    } catch (NumberFormatException e) {
      // falls through to the refusal
    }
    throw Status.INVALID_ARGUMENT.withDescription("key '" + k + "' is not NAME/LEASE (the lease id in hexadecimal),"
        + " the key a Lock answered with").asRuntimeException();
  }

  /** A key's name and lease id. */
  record Parsed(String name, long lease) {
  }
}
