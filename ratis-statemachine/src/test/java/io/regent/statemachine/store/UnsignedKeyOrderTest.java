package io.regent.statemachine.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.regent.statemachine.proto.KvEvent;
import io.regent.statemachine.proto.KvRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ranges over the tables follow LMDB's own key order, unsigned bytes (docs/architecture.md §2), across a key byte of
 * 0x80 and above. lmdbjava 0.9.3 ends a {@code KeyRange} iteration by comparing keys in Java, signed unless the
 * table is opened with {@code MDB_UNSIGNEDKEY}: a range then stopped at the first key whose byte at the first
 * difference from its end was 0x80 or more while the end's was not — the watch history lost revisions 256 to 412
 * of a catch-up from 115 (a read to 419 stopped at 256), and a lease's keys from id 127 on went unseen.
 */
class UnsignedKeyOrderTest {
  @TempDir
  Path dir;

  private static KvRecord kv(String key, long lease, long revision) {
    return KvRecord.newBuilder().setKey(ByteString.copyFromUtf8(key)).setValue(ByteString.copyFromUtf8("v"))
        .setLease(lease).setCreateRevision(revision).setModRevision(revision).setVersion(1).build();
  }

  @Test
  void aHistoryReadAcrossRevision256ReturnsEveryRevision() {
    try (RegentStore store = RegentStore.open(dir)) {
      store.write(txn -> {
        for (long r = 250; r <= 419; r++) {
          txn.kvHistory().append(r, List.of(KvEvent.newBuilder().setKv(kv("k", 0, r)).build()));
        }
        return null;
      });
      // 419 is 0x01A3: against it, 256 (0x0100) compared greater when bytes were signed (0x00 > 0xA3 = -93)
      List<KvHistory.Revision> read = store.read(txn -> txn.kvHistory().read(250, 419, 1_000));
      assertThat(read).extracting(KvHistory.Revision::revision).hasSize(170).startsWith(250L).endsWith(419L);
    }
  }

  @Test
  void theKeysOfLease127AndOfLease255AreFound() {
    try (RegentStore store = RegentStore.open(dir)) {
      store.write(txn -> {
        for (long lease : new long[] {127, 128, 255, 256}) {
          txn.kv().put(kv("of-" + lease, lease, 1), 0);
        }
        return null;
      });
      for (long lease : new long[] {127, 128, 255, 256}) {
        List<byte[]> keys = store.read(txn -> txn.kv().keysOf(lease));
        assertThat(keys).as("keys of lease %d", lease).extracting(k -> new String(k, StandardCharsets.UTF_8))
            .containsExactly("of-" + lease);
      }
    }
  }

  @Test
  void aKeyRangeAcrossByte0x80HoldsEveryKeyBetween() {
    try (RegentStore store = RegentStore.open(dir)) {
      byte[][] keys = {{0x61}, {0x62}, {(byte) 0x7f}, {(byte) 0x80}, {(byte) 0x81}, {(byte) 0xff}};
      store.write(txn -> {
        for (byte[] k : keys) {
          txn.kv().put(KvRecord.newBuilder().setKey(ByteString.copyFrom(k)).setModRevision(1).build(), 0);
        }
        return null;
      });
      List<KvRecord> between = store.read(txn -> txn.kv().range(new byte[] {0x62}, new byte[] {(byte) 0x81}));
      assertThat(between).extracting(r -> r.getKey().byteAt(0) & 0xff).containsExactly(0x62, 0x7f, 0x80);
      List<KvRecord> from = store.read(txn -> txn.kv().range(new byte[] {0x61}, null));
      assertThat(from).hasSize(keys.length);
    }
  }
}
