package io.regent.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.server.rpc.Right;
import java.util.List;
import org.junit.jupiter.api.Test;

class PermissionsTest {
  private final Permissions p = Permissions.parse(List.of(
      "# comment",
      "",
      "scheduler  jobs/   campaign,read   # per-name rights",
      "scheduler  *       lease",
      "ops        *       all",
      "*          public/ read"), "perm");

  @Test
  void perNameRightsCoverOnlyTheirPrefix() {
    assertThat(p.allows("scheduler", Right.CAMPAIGN, "jobs/nightly")).isTrue();
    assertThat(p.allows("scheduler", Right.CAMPAIGN, "billing/x")).isFalse();
    assertThat(p.allows("scheduler", Right.LOCK, "jobs/nightly")).isFalse();
    assertThat(p.allows("scheduler", Right.READ, null)).as("Status needs read on *").isFalse();
  }

  @Test
  void starPrefixCoversEveryNameAndCallsWithoutOne() {
    assertThat(p.allows("scheduler", Right.LEASE, null)).isTrue();
    assertThat(p.allows("ops", Right.MEMBER, null)).isTrue();
    assertThat(p.allows("ops", Right.CAMPAIGN, "anything")).isTrue();
  }

  @Test
  void starIdentityCoversEveryCallerIncludingOneWithoutCertificate() {
    assertThat(p.allows(null, Right.READ, "public/status")).isTrue();
    assertThat(p.allows("stranger", Right.READ, "public/status")).isTrue();
    assertThat(p.allows(null, Right.READ, "jobs/nightly")).isFalse();
    assertThat(p.allows(null, Right.LEASE, null)).isFalse();
  }

  @Test
  void unknownIdentityMayDoNothingElse() {
    assertThat(p.allows("stranger", Right.CAMPAIGN, "jobs/nightly")).isFalse();
  }

  @Test
  void badLinesNameTheFileAndLine() {
    assertThatThrownBy(() -> Permissions.parse(List.of("a * read", "b jobs/"), "perm"))
        .hasMessage("perm:2: expected IDENTITY PREFIX RIGHT[,RIGHT...], got 'b jobs/'");
    assertThatThrownBy(() -> Permissions.parse(List.of("a jobs/ campaign,write"), "perm"))
        .hasMessageStartingWith("perm:1: unknown right 'write'");
    assertThatThrownBy(() -> Permissions.parse(List.of("a jobs/ lease"), "perm"))
        .hasMessageStartingWith("perm:1: lease and member are not per-name rights");
  }
}
