package io.regent.etcdcompat;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.etcdcompat.Etcdctl.Run;
import java.io.IOException;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * etcd's own command line, {@code etcdctl} 3.4 ({@link Etcdctl}), on Regent's KV through a follower's etcd port of
 * a 3-node cluster (docs/migrating.md "etcd's KV"): put and get with prefix, limit and sort, del, txn with compares
 * on create, mod and value, a key attached to a lease that goes when the lease is revoked, and an uncontended
 * {@code etcdctl lock}. Keys under {@code ctl/} and {@code ctl-lock/} (the module's cluster is shared).
 */
@ExtendWith(EtcdCompatCluster.Shared.class)
@Tag("cluster")
class EtcdctlKvTest {
  private static final Pattern GRANTED = Pattern.compile("lease ([0-9a-f]+) granted");
  private static final Pattern MOD_REVISION = Pattern.compile("\"mod_revision\":(\\d+)");

  @TempDir
  static Path dir;
  static String follower;

  @BeforeAll
  static void start(EtcdCompatCluster shared) {
    follower = shared.followerEndpoint();
  }

  private static Run etcdctl(String... args) throws IOException, InterruptedException {
    return Etcdctl.run(dir, follower, null, args);
  }

  private static Run ok(String... args) throws IOException, InterruptedException {
    Run r = etcdctl(args);
    assertThat(r.exit()).as(String.join(" ", args) + ": " + r.out()).isZero();
    return r;
  }

  @Test
  void putGetAndDeleteWithPrefixLimitAndSort() throws Exception {
    assertThat(ok("put", "ctl/get/b", "2").out()).isEqualTo("OK");
    ok("put", "ctl/get/a", "3");
    ok("put", "ctl/get/c", "1");
    ok("put", "ctl/other", "x");

    assertThat(ok("get", "ctl/get/a").out()).isEqualTo("ctl/get/a\n3");
    assertThat(ok("get", "--prefix", "ctl/get/").out()).isEqualTo("ctl/get/a\n3\nctl/get/b\n2\nctl/get/c\n1");
    assertThat(ok("get", "--prefix", "--limit=2", "--keys-only", "ctl/get/").out().lines()
        .filter(l -> !l.isEmpty())).containsExactly("ctl/get/a", "ctl/get/b");
    assertThat(ok("get", "--prefix", "--sort-by=CREATE", "--order=DESCEND", "--keys-only", "ctl/get/").out().lines()
        .filter(l -> !l.isEmpty())).as("newest first").containsExactly("ctl/get/c", "ctl/get/a", "ctl/get/b");
    assertThat(ok("get", "--prefix", "--sort-by=VALUE", "--print-value-only", "ctl/get/").out())
        .isEqualTo("1\n2\n3");
    assertThat(ok("get", "--prefix", "--limit=1", "-w", "json", "ctl/get/").out()).as("the range's count, and more")
        .contains("\"more\":true").contains("\"count\":3");

    assertThat(ok("del", "ctl/get/a").out()).isEqualTo("1");
    assertThat(ok("del", "--prefix", "ctl/get/").out()).isEqualTo("2");
    assertThat(ok("get", "--prefix", "ctl/get/").out()).isEmpty();
    assertThat(ok("get", "ctl/other").out()).isEqualTo("ctl/other\nx");
  }

  @Test
  void txnComparesCreateModAndValue() throws Exception {
    // create("key") = "0": the key does not exist yet, as etcd's lock and election recipes ask
    String create = "create(\"ctl/txn/k\") = \"0\"\n\nput ctl/txn/k first\n\nget ctl/txn/k\n\n";
    assertThat(Etcdctl.run(dir, follower, create, "txn").out()).startsWith("SUCCESS").contains("OK");
    assertThat(Etcdctl.run(dir, follower, create, "txn").out()).startsWith("FAILURE").contains("first");

    Matcher m = MOD_REVISION.matcher(ok("get", "ctl/txn/k", "-w", "json").out());
    assertThat(m.find()).isTrue();
    String mod = m.group(1);
    String byMod = "mod(\"ctl/txn/k\") = \"" + mod + "\"\nvalue(\"ctl/txn/k\") = \"first\"\n\n"
        + "put ctl/txn/k second\n\n\n";
    assertThat(Etcdctl.run(dir, follower, byMod, "txn").out()).startsWith("SUCCESS");
    assertThat(Etcdctl.run(dir, follower, byMod, "txn").out()).as("the mod revision moved").startsWith("FAILURE");
    assertThat(ok("get", "--print-value-only", "ctl/txn/k").out()).isEqualTo("second");
  }

  @Test
  void aKeyOnALeaseGoesWhenTheLeaseIsRevoked() throws Exception {
    Matcher m = GRANTED.matcher(ok("lease", "grant", "30").out());
    assertThat(m.find()).isTrue();
    String lease = m.group(1);
    ok("put", "--lease=" + lease, "ctl/lease/k", "held");
    assertThat(ok("get", "ctl/lease/k").out()).isEqualTo("ctl/lease/k\nheld");
    ok("lease", "revoke", lease);
    assertThat(ok("get", "ctl/lease/k").out()).isEmpty();

    Run unknown = etcdctl("put", "--lease=" + lease, "ctl/lease/k", "again");
    assertThat(unknown.exit()).isNotZero();
    assertThat(unknown.out()).contains("etcdserver: requested lease not found");
    assertThat(ok("get", "ctl/lease/k").out()).isEmpty();
  }

  /**
   * {@code etcdctl lock NAME COMMAND} without a contender: Go's {@code concurrency.Mutex} takes the lock by a Txn on
   * create_revision 0 and a first-created range, compares the header revision with its key's create_revision, runs
   * the command, and deletes its key and revokes its session's lease. (A contender would wait with Watch, not served
   * yet.)
   */
  @Test
  void etcdctlLockWithoutAContenderRunsItsCommandAndLeavesNoKey() throws Exception {
    assertThat(ok("lock", "ctl-lock", "echo", "held").out()).isEqualTo("held");
    assertThat(ok("get", "--prefix", "ctl-lock/").out()).isEmpty();
  }
}
