package io.regent.etcdcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static io.regent.etcdcompat.Jetcd.bytes;
import static io.regent.etcdcompat.Jetcd.get;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.PutResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * jetcd's KV client on Regent's keyspace through a follower's etcd port (docs/migrating.md "etcd's KV"): revisions
 * are log indexes (a put's header revision is its key's create and mod revision), create_revision stays while
 * mod_revision and version move, a Txn on create_revision 0 takes a key once (etcd's lock recipe), and the
 * refusals carry etcd's texts. Keys under {@code jetcd-kv/} (the module's cluster is shared).
 */
@ExtendWith(EtcdCompatCluster.Shared.class)
@Tag("cluster")
class JetcdKvTest {
  static Client client;
  static KV kv;

  @BeforeAll
  static void start(EtcdCompatCluster cluster) {
    client = Client.builder().endpoints("http://" + cluster.followerEndpoint()).build();
    kv = client.getKVClient();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
  }

  @Test
  void revisionsAreLogIndexesAndCreateRevisionStaysWhileTheKeyLives() throws Exception {
    PutResponse created = get(kv.put(bytes("jetcd-kv/r"), bytes("1")));
    long createdAt = created.getHeader().getRevision();
    PutResponse modified = get(kv.put(bytes("jetcd-kv/r"), bytes("2"), PutOption.builder().withPrevKV().build()));
    assertThat(modified.hasPrevKv()).isTrue();
    assertThat(modified.getPrevKv().getValue()).isEqualTo(bytes("1"));
    long modifiedAt = modified.getHeader().getRevision();
    assertThat(modifiedAt).isGreaterThan(createdAt);

    GetResponse read = get(kv.get(bytes("jetcd-kv/r")));
    KeyValue k = read.getKvs().get(0);
    assertThat(k.getCreateRevision()).isEqualTo(createdAt);
    assertThat(k.getModRevision()).isEqualTo(modifiedAt);
    assertThat(k.getVersion()).isEqualTo(2);
    assertThat(read.getHeader().getRevision()).as("a linearizable read sees at least the put")
        .isGreaterThanOrEqualTo(modifiedAt);
  }

  @Test
  void aTxnOnCreateRevisionZeroTakesAKeyOnce() throws Exception {
    ByteSequence key = bytes("jetcd-kv/lock");
    Cmp free = new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0));
    TxnResponse first = get(kv.txn().If(free).Then(Op.put(key, bytes("a"), PutOption.DEFAULT))
        .Else(Op.get(key, GetOption.DEFAULT)).commit());
    assertThat(first.isSucceeded()).isTrue();
    TxnResponse second = get(kv.txn().If(free).Then(Op.put(key, bytes("b"), PutOption.DEFAULT))
        .Else(Op.get(key, GetOption.DEFAULT)).commit());
    assertThat(second.isSucceeded()).isFalse();
    KeyValue owner = second.getGetResponses().get(0).getKvs().get(0);
    assertThat(owner.getValue()).isEqualTo(bytes("a"));
    assertThat(owner.getCreateRevision()).isEqualTo(first.getHeader().getRevision());
  }

  @Test
  void aPrefixRangeSortsAndLimits() throws Exception {
    for (String k : new String[] {"b", "a", "c"}) {
      get(kv.put(bytes("jetcd-kv/p/" + k), bytes(k)));
    }
    GetResponse newest = get(kv.get(bytes("jetcd-kv/p/"), GetOption.builder().isPrefix(true).withLimit(2)
        .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.DESCEND).build()));
    assertThat(newest.getKvs()).extracting(KeyValue::getKey).containsExactly(bytes("jetcd-kv/p/c"),
        bytes("jetcd-kv/p/a"));
    assertThat(newest.isMore()).isTrue();
    assertThat(newest.getCount()).isEqualTo(3);
    assertThat(get(kv.delete(bytes("jetcd-kv/p/"), io.etcd.jetcd.options.DeleteOption.builder().isPrefix(true)
        .build())).getDeleted()).isEqualTo(3);
  }

  @Test
  void refusalsCarryEtcdsTextsAndChangeNothing() throws Exception {
    assertThatThrownBy(() -> get(kv.put(bytes("jetcd-kv/x"), bytes("v"),
        PutOption.builder().withLeaseId(987_654_321L).build()))).hasMessageContaining("requested lease not found");
    assertThat(get(kv.get(bytes("jetcd-kv/x"))).getKvs()).isEmpty();
    // a value above the API's 64 KiB (docs/api.md): etcd's text for a request above its size limit
    assertThatThrownBy(() -> get(kv.put(bytes("jetcd-kv/x"), ByteSequence.from(new byte[64 * 1024 + 1]))))
        .hasMessageContaining("etcdserver: request is too large");
    assertThat(get(kv.get(bytes("jetcd-kv/x"))).getKvs()).isEmpty();

    long now = get(kv.put(bytes("jetcd-kv/y"), bytes("v"))).getHeader().getRevision();
    assertThatThrownBy(() -> get(kv.get(bytes("jetcd-kv/y"), GetOption.builder().withRevision(now + 1_000_000)
        .build()))).hasMessageContaining("required revision is a future revision");
    get(kv.compact(now - 1));
    assertThatThrownBy(() -> get(kv.get(bytes("jetcd-kv/y"), GetOption.builder().withRevision(now - 2).build())))
        .hasMessageContaining("required revision has been compacted");
    assertThatThrownBy(() -> get(kv.compact(now - 1))).hasMessageContaining("required revision has been compacted");
    assertThatThrownBy(() -> get(kv.get(bytes("jetcd-kv/y"), GetOption.builder().withRevision(now).build())))
        .as("history is not kept").hasMessageContaining("UNIMPLEMENTED");
  }
}
