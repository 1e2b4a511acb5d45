package io.regent.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.regent.bench.load.BenchRun;
import io.regent.bench.load.ClientTls;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

class BenchCommandTest {
  private static BenchRun.Config parse(String... args) {
    BenchCommand cmd = new BenchCommand();
    new CommandLine(cmd).parseArgs(args);
    return cmd.config();
  }

  @Test
  void parsesEveryOption() {
    BenchRun.Config c = parse("--target", "etcd", "--endpoints", "127.0.0.1:1,127.0.0.1:2", "--workload",
        "leader-read", "--clients", "16", "--duration", "15s", "--warmup", "500ms", "--rate", "2000",
        "--label", "etcd-3", "--tenant", "storm", "-w", "json");
    assertThat(c.target()).isEqualTo("etcd");
    assertThat(c.endpoints()).containsExactly("127.0.0.1:1", "127.0.0.1:2");
    assertThat(c.workload()).isEqualTo("leader-read");
    assertThat(c.clients()).isEqualTo(16);
    assertThat(c.duration()).isEqualTo(Duration.ofSeconds(15));
    assertThat(c.warmup()).isEqualTo(Duration.ofMillis(500));
    assertThat(c.rate()).isEqualTo(2000.0);
    assertThat(c.label()).isEqualTo("etcd-3");
    assertThat(c.tenant()).isEqualTo("storm");
  }

  @Test
  void defaults() {
    BenchRun.Config c = parse("--target", "etcd", "--workload", "keepalive");
    assertThat(c.endpoints()).isEqualTo(List.of("127.0.0.1:2379"));
    assertThat(c.clients()).isEqualTo(1);
    assertThat(c.leases()).isEqualTo(10_000);
    assertThat(c.ttlMs()).isEqualTo(10_000);
    assertThat(c.rate()).isZero();
    assertThat(c.label()).isEqualTo("etcd");
    assertThat(c.tenant()).as("names bench/RUN/..., as before cells").isEqualTo("bench");
  }

  @Test
  void severalWorkloadsAndClientCountsAreOnePointEachInOrder() {
    BenchCommand cmd = new BenchCommand();
    new CommandLine(cmd).parseArgs("--target", "ratis", "--workload", "campaign,leader-read", "--clients", "1,64");
    assertThat(cmd.points()).extracting(BenchRun.Config::workload, BenchRun.Config::clients).containsExactly(
        tuple("campaign", 1), tuple("campaign", 64),
        tuple("leader-read", 1), tuple("leader-read", 64));
    assertThat(cmd.points().get(0).endpoints()).hasSize(3);
  }

  @Test
  void severalTtlsAreAKeepaliveLadderOnePointEach() {
    BenchCommand cmd = new BenchCommand();
    new CommandLine(cmd).parseArgs("--workload", "keepalive", "--ttl", "10s,2500ms", "--clients", "16");
    assertThat(cmd.points()).extracting(BenchRun.Config::ttlMs, BenchRun.Config::clients).containsExactly(
        tuple(10_000L, 16), tuple(2_500L, 16));
    assertThatThrownBy(() -> parse("--workload", "keepalive", "--ttl", "0s"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("--ttl");
  }

  @Test
  void rebalanceTakesPartitionsAndMembers() {
    BenchRun.Config c = parse("--workload", "rebalance", "--partitions", "500", "--members", "7", "--ttl", "3s");
    assertThat(c.partitions()).isEqualTo(500);
    assertThat(c.members()).isEqualTo(7);
    assertThat(c.ttlMs()).isEqualTo(3_000);
    assertThat(parse("--workload", "rebalance").partitions()).isEqualTo(10_000);
    assertThat(parse("--workload", "rebalance").members()).isEqualTo(100);
    assertThatThrownBy(() -> parse("--workload", "rebalance", "--target", "etcd"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("--target regent");
    assertThatThrownBy(() -> parse("--workload", "rebalance", "--members", "2"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("--members");
    assertThatThrownBy(() -> parse("--workload", "rebalance", "--partitions", "65537"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("--partitions");
    assertThatThrownBy(() -> parse("--workload", "rebalance", "--rate", "5"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("--rate");
  }

  @Test
  void rejectsBadCombinations() {
    assertThatThrownBy(() -> parse("--workload", "handover", "--target", "ratis"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("ratis");
    assertThatThrownBy(() -> parse("--workload", "campaign-all", "--target", "ratis"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("ratis");
    assertThatThrownBy(() -> parse("--workload", "campaign", "--clients", "1,0"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("--clients");
    assertThatThrownBy(() -> parse("--workload", "nope")).isInstanceOf(ParameterException.class)
        .hasMessageContaining("--workload");
    assertThatThrownBy(() -> parse("--workload", "keepalive", "--rate", "10"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("--rate");
    assertThatThrownBy(() -> parse("--workload", "campaign", "--target", "zookeeper"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("--target");
    assertThatThrownBy(() -> parse("--workload", "campaign", "--clients", "0"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("--clients");
    assertThatThrownBy(() -> parse("--workload", "campaign", "--endpoints", "nohost"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("host:port");
    for (String tenant : new String[] {"", "a/b", "{a}"}) {
      assertThatThrownBy(() -> parse("--workload", "campaign", "--tenant", tenant))
          .isInstanceOf(ParameterException.class).hasMessageContaining("--tenant");
    }
  }

  @Test
  void theFloodHasAClientCertificateOfItsOwnAndTheOthersThatOfCert() {
    BenchRun.Config c = parse("--workload", "overload", "--cacert", "ca.crt", "--cert", "polite.crt", "--key",
        "polite.key", "--flood-cert", "flood.crt", "--flood-key", "flood.key");
    assertThat(c.tls()).isEqualTo(new ClientTls(Path.of("ca.crt"), Path.of("polite.crt"), Path.of("polite.key")));
    assertThat(c.floodTls()).isEqualTo(new ClientTls(Path.of("ca.crt"), Path.of("flood.crt"), Path.of("flood.key")));
    BenchRun.Config same = parse("--workload", "overload", "--cacert", "ca.crt", "--cert", "p.crt", "--key", "p.key");
    assertThat(same.floodTls()).isEqualTo(same.tls());
    assertThat(parse("--workload", "overload").tls()).isEqualTo(ClientTls.NONE);
    assertThat(parse("--workload", "overload", "--flood-clients", "0").floodClients()).isZero();
    assertThat(parse("--workload", "overload", "--rate", "6400").rate()).isEqualTo(6400.0); // the flood's, open loop
    assertThatThrownBy(() -> parse("--workload", "overload", "--cacert", "ca.crt", "--flood-cert", "f.crt"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("--flood-cert and --flood-key go together");
    assertThatThrownBy(() -> parse("--workload", "overload", "--cert", "p.crt", "--key", "p.key"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("needs --cacert");
    assertThatThrownBy(() -> parse("--workload", "overload", "--flood-cert", "f.crt", "--flood-key", "f.key"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("needs --cacert");
    assertThatThrownBy(() -> parse("--workload", "keepalive", "--target", "etcd", "--cacert", "ca.crt"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("regent targets");
    assertThatThrownBy(() -> parse("--workload", "keepalive", "--flood-clients", "0"))
        .isInstanceOf(ParameterException.class).hasMessageContaining("--flood-clients");
  }
}
