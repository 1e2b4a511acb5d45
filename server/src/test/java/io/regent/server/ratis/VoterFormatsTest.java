package io.regent.server.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.statemachine.apply.EntryCodec;
import io.regent.statemachine.proto.MemberTiming;
import io.regent.statemachine.replica.ReplicaView;
import io.regent.statemachine.store.RegentStore;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node writes the newest entry version only when every voter of the current configuration published that it
 * applies it (docs/operations.md "Upgrades").
 */
class VoterFormatsTest {
  private RegentStore store;
  private final AtomicReference<Set<String>> voters = new AtomicReference<>(Set.of("n1", "n2", "n3"));
  private VoterFormats formats;

  @BeforeEach
  void open(@TempDir Path dir) {
    store = RegentStore.open(dir);
    ReplicaView replica = StoreReplica.of(store);
    formats = new VoterFormats("n1", EntryCodec.MAX_VERSION, voters::get, replica);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private void publish(String id, int version) {
    store.write(txn -> {
      txn.putMemberTiming(MemberTiming.newBuilder().setMemberId(id).setMinElectionTimeoutMs(600).setPreVote(true)
          .setMaxEntryVersion(version).build());
      return null;
    });
  }

  @Test
  void aVoterThatPublishedNothingOrRunsAnOlderReleaseHoldsTheClusterAtVersion1() {
    publish("n2", EntryCodec.MAX_VERSION);
    assertThat(formats.writable()).as("n3 published nothing").isEqualTo(EntryCodec.VERSION);
    publish("n3", 0); // a release from before max_entry_version: it applies version 1 only
    assertThat(formats.writable()).isEqualTo(EntryCodec.VERSION);
  }

  @Test
  void theClusterWritesTheSmallestVersionAmongItsVoters() {
    publish("n2", EntryCodec.MAX_VERSION);
    publish("n3", EntryCodec.BATCH_VERSION);
    assertThat(formats.writable()).isEqualTo(EntryCodec.BATCH_VERSION);
    publish("n3", EntryCodec.MAX_VERSION);
    assertThat(formats.writable()).isEqualTo(EntryCodec.MAX_VERSION);
  }

  @Test
  void duringAMembershipChangeANewVoterCountsToo() {
    publish("n2", EntryCodec.MAX_VERSION);
    publish("n3", EntryCodec.MAX_VERSION);
    voters.set(Set.of("n1", "n2", "n3", "n4")); // old and new configuration together
    assertThat(formats.writable()).isEqualTo(EntryCodec.VERSION);
  }

  @Test
  void aNodeThatKnowsNoVotersWritesVersion1() {
    voters.set(Set.of());
    assertThat(formats.writable()).isEqualTo(EntryCodec.VERSION);
  }

  @Test
  void aLeaderOnAnOlderBuildWritesItsOwnVersion() {
    publish("n2", EntryCodec.MAX_VERSION);
    publish("n3", EntryCodec.MAX_VERSION);
    ReplicaView replica = StoreReplica.of(store);
    assertThat(new VoterFormats("n1", EntryCodec.VERSION, voters::get, replica).writable()).isEqualTo(EntryCodec.VERSION);
  }
}
