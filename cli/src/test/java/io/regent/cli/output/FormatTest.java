package io.regent.cli.output;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.regent.api.v1.LeaderKey;
import io.regent.api.v1.CellStatus;
import io.regent.api.v1.KvStats;
import io.regent.api.v1.Member;
import io.regent.api.v1.ObserveResponse;
import io.regent.api.v1.StatusResponse;
import org.junit.jupiter.api.Test;

class FormatTest {
  static final LeaderKey KEY = LeaderKey.newBuilder().setName("jobs").setValue(ByteString.copyFromUtf8("node-a"))
      .setToken(412).setLease(398).build();

  @Test
  void leaderKeyAsJsonIsOneObjectOnOneLine() {
    assertThat(Format.leaderKey(KEY, true)).isEqualTo("{\"name\":\"jobs\",\"value\":\"node-a\",\"token\":412,\"lease\":398}");
    assertThat(Format.grant(KEY, true)).isEqualTo(Format.leaderKey(KEY, true));
  }

  @Test
  void leaderKeyAsText() {
    assertThat(Format.leaderKey(KEY, false)).isEqualTo("jobs node-a token=412 lease=398");
    assertThat(Format.grant(KEY, false)).isEqualTo("elected jobs node-a token=412 lease=398");
  }

  @Test
  void jsonEscapesQuotesBackslashesAndControlCharacters() {
    LeaderKey k = KEY.toBuilder().setName("a\"b\\c").setValue(ByteString.copyFromUtf8("line1\nline2\t\u0001é")).build();

    assertThat(Format.leaderKey(k, true))
        .isEqualTo("{\"name\":\"a\\\"b\\\\c\",\"value\":\"line1\\nline2\\t\\u0001é\",\"token\":412,\"lease\":398}");
  }

  @Test
  void observeEvents() {
    ObserveResponse elected = ObserveResponse.newBuilder().setKind(ObserveResponse.Kind.ELECTED).setName("jobs")
        .setLeader(KEY).setIndex(412).build();
    ObserveResponse free = ObserveResponse.newBuilder().setKind(ObserveResponse.Kind.RESIGNED).setName("jobs")
        .setIndex(420).build();

    assertThat(Format.event(elected, false)).isEqualTo("ELECTED jobs node-a token=412 lease=398 index=412");
    assertThat(Format.event(free, false)).isEqualTo("RESIGNED jobs none index=420");
    assertThat(Format.event(free.toBuilder().setKind(ObserveResponse.Kind.CURRENT).setCompacted(true).build(), false))
        .isEqualTo("CURRENT jobs none index=420 compacted");
    assertThat(Format.event(elected, true)).isEqualTo("{\"kind\":\"ELECTED\",\"name\":\"jobs\",\"value\":\"node-a\","
        + "\"token\":412,\"lease\":398,\"index\":412,\"compacted\":false}");
    assertThat(Format.event(free, true)).isEqualTo("{\"kind\":\"RESIGNED\",\"name\":\"jobs\",\"value\":null,"
        + "\"token\":null,\"lease\":null,\"index\":420,\"compacted\":false}");
  }

  @Test
  void statusAsJsonIsOneObject() {
    StatusResponse s = StatusResponse.newBuilder().setNode("n1").setRole("FOLLOWER").setLeader("n2").setTerm(3)
        .setCommitIndex(45).setAppliedIndex(44)
        .addMembers(Member.newBuilder().setId("n1").setAddress("127.0.0.1:7001").setApiAddress("127.0.0.1:7101"))
        .addMembers(Member.newBuilder().setId("n2").setAddress("127.0.0.1:7002").setRole(Member.Role.LEARNER))
        .build();

    assertThat(Format.status(s, true)).isEqualTo("{\"node\":\"n1\",\"role\":\"FOLLOWER\",\"leader\":\"n2\",\"term\":3,"
        + "\"commit_index\":45,\"applied_index\":44,\"members\":[{\"id\":\"n1\",\"address\":\"127.0.0.1:7001\","
        + "\"api_address\":\"127.0.0.1:7101\",\"role\":\"voter\",\"match_index\":null,\"lag_entries\":null,\"lag_seconds\":null},"
        + "{\"id\":\"n2\",\"address\":\"127.0.0.1:7002\",\"api_address\":null,\"role\":\"learner\","
        + "\"match_index\":null,\"lag_entries\":null,\"lag_seconds\":null}],"
        + "\"console_url\":null,\"etcd_address\":null,\"kv\":null,\"degraded\":null,\"cells\":null}");
    StatusResponse withConsole = s.toBuilder().setConsoleUrl("http://127.0.0.1:7201/console/").build();
    assertThat(Format.status(withConsole, true)).endsWith(",\"console_url\":\"http://127.0.0.1:7201/console/\","
        + "\"etcd_address\":null,\"kv\":null,\"degraded\":null,\"cells\":null}");
    StatusResponse withEtcd = s.toBuilder().setEtcdAddress("127.0.0.1:7301")
        .setKv(KvStats.newBuilder().setKeys(3).setBytes(8192).setWatchers(2)).build();
    assertThat(Format.status(withEtcd, true)).endsWith(",\"etcd_address\":\"127.0.0.1:7301\","
        + "\"kv\":{\"keys\":3,\"bytes\":8192,\"watchers\":2},\"degraded\":null,\"cells\":null}");
    assertThat(Format.status(withEtcd, false)).endsWith("etcd     127.0.0.1:7301" + System.lineSeparator()
        + "kv       3 keys, 8192 bytes, 2 watchers");
    assertThat(Format.status(withConsole, false)).endsWith("console  http://127.0.0.1:7201/console/");
    StatusResponse withCells = s.toBuilder()
        .addCells(CellStatus.newBuilder().setCell(0).setLeader("n2").setTerm(3).setCommitIndex(45).setAppliedIndex(44)
            .setRole("FOLLOWER"))
        .addCells(CellStatus.newBuilder().setCell(1).setRole("STOPPED")).build();
    assertThat(Format.status(withCells, true)).endsWith(",\"cells\":[{\"cell\":0,\"leader\":\"n2\",\"term\":3,"
        + "\"commit_index\":45,\"applied_index\":44,\"role\":\"FOLLOWER\"},{\"cell\":1,\"leader\":null,\"term\":0,"
        + "\"commit_index\":0,\"applied_index\":0,\"role\":\"STOPPED\"}]}");
    assertThat(Format.status(withCells, false)).endsWith("cell 0    leader=n2 term=3 commit=45 applied=44 FOLLOWER"
        + System.lineSeparator() + "cell 1    leader=none term=0 commit=0 applied=0 STOPPED");
    assertThat(Format.status(s, false)).doesNotContain("console");
    assertThat(Format.status(s.toBuilder().setLeader("").build(), true)).contains("\"leader\":null");
    assertThat(Format.status(s, false)).contains("leader   n2").contains("members  n1=127.0.0.1:7001 n2=127.0.0.1:7002*");
  }

  @Test
  void aLeadersStatusShowsEachFollowersLagAndWhetherTheClusterIsDegraded() {
    Member.Builder n1 = Member.newBuilder().setId("n1").setAddress("127.0.0.1:7001");
    Member.Builder n3 = Member.newBuilder().setId("n3").setAddress("127.0.0.1:7003");
    StatusResponse leader = StatusResponse.newBuilder().setNode("n1").setRole("LEADER").setLeader("n1")
        .addMembers(n1.clone().setReplication(io.regent.api.v1.Replication.newBuilder().setMatchIndex(5200)))
        .addMembers(n3.clone().setReplication(io.regent.api.v1.Replication.newBuilder().setMatchIndex(200)
            .setLagEntries(5000).setLagSeconds(60.04)))
        .setDegraded("degraded: n3 behind 5000 entries for 60 s").build();

    assertThat(Format.status(leader, true)).contains("{\"id\":\"n3\",\"address\":\"127.0.0.1:7003\","
        + "\"api_address\":null,\"role\":\"voter\",\"match_index\":200,\"lag_entries\":5000,\"lag_seconds\":60.04}")
        .endsWith("\"degraded\":\"degraded: n3 behind 5000 entries for 60 s\",\"cells\":null}");
    assertThat(Format.status(leader, false)).contains(String.join(System.lineSeparator(),
        "lag      n3 match=200 behind=5000 entries, 60.0 s", "degraded: n3 behind 5000 entries for 60 s"))
        .doesNotContain("lag      n1");
    StatusResponse follower = StatusResponse.newBuilder().setNode("n3").setRole("FOLLOWER").setLeader("n1")
        .addMembers(n1).addMembers(n3).build();
    assertThat(Format.status(follower, false)).endsWith("lag      known on the leader only: ask n1")
        .doesNotContain("degraded");
  }

  @Test
  void memberIsOneLineWithRoleAddressesAndLeaderMark() {
    Member voter = Member.newBuilder().setId("n1").setAddress("10.0.0.1:7001").setApiAddress("10.0.0.1:7101").build();
    Member learner = Member.newBuilder().setId("n4").setAddress("10.0.0.4:7001").setRole(Member.Role.LEARNER).build();
    assertThat(Format.member(voter, "n1", false)).isEqualTo("n1 voter raft=10.0.0.1:7001 api=10.0.0.1:7101 leader");
    assertThat(Format.member(learner, "n1", false)).isEqualTo("n4 learner raft=10.0.0.4:7001 api=unknown");
    assertThat(Format.member(learner, "n1", true)).isEqualTo("{\"id\":\"n4\",\"role\":\"learner\","
        + "\"raft\":\"10.0.0.4:7001\",\"api\":null,\"leader\":false}");
  }
}
