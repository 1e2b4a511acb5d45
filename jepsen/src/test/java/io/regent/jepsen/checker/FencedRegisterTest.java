package io.regent.jepsen.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.history.History;
import io.regent.jepsen.history.Op;
import org.junit.jupiter.api.Test;

/** Hand-made election histories for the fenced register, one register per name ({@code :key}). */
class FencedRegisterTest {

  static Result check(Op... ops) {
    return new LinearizabilityChecker(FencedRegister.initial()).check(History.of(ops));
  }

  static Op inv(long p, String f, Long v, String name) {
    return Op.invoke(p, f, v).withKey(name);
  }

  static Op ok(long p, String f, Long v, String name) {
    return Op.ok(p, f, v).withKey(name);
  }

  @Test
  void increasingGrantsAndCurrentReadsAreValid() {
    Result r = check(
        inv(0, "grant", null, "a"), ok(0, "grant", 3L, "a"),
        inv(1, "read", null, "a"), ok(1, "read", 3L, "a"),
        inv(0, "resign", null, "a"), ok(0, "resign", null, "a"),
        inv(1, "read", null, "a"), ok(1, "read", null, "a"),
        inv(1, "grant", null, "a"), ok(1, "grant", 8L, "a"),
        inv(0, "read", null, "a"), ok(0, "read", 8L, "a"));
    assertThat(r.verdict()).isEqualTo(Verdict.VALID);
  }

  @Test
  void aGrantNotAboveAnEarlierOneIsInvalid() {
    Result r = check(
        inv(0, "grant", null, "a"), ok(0, "grant", 5L, "a"),
        inv(1, "grant", null, "a"), ok(1, "grant", 5L, "a"));
    assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(r.explanation()).contains("grant of token 5 is not above the last granted token is 5");
  }

  @Test
  void concurrentGrantsMayOrderByToken() {
    assertThat(check(
        inv(0, "grant", null, "a"), inv(1, "grant", null, "a"),
        ok(0, "grant", 9L, "a"), ok(1, "grant", 4L, "a")).verdict()).isEqualTo(Verdict.VALID);
    assertThat(check(
        inv(0, "grant", null, "a"), ok(0, "grant", 9L, "a"),
        inv(1, "grant", null, "a"), ok(1, "grant", 4L, "a")).verdict()).isEqualTo(Verdict.INVALID);
  }

  @Test
  void staleOrUngrantedReadsAreInvalid() {
    assertThat(check(
        inv(0, "grant", null, "a"), ok(0, "grant", 3L, "a"),
        inv(0, "grant", null, "a"), ok(0, "grant", 6L, "a"),
        inv(1, "read", null, "a"), ok(1, "read", 3L, "a")).verdict()).isEqualTo(Verdict.INVALID);
    assertThat(check(
        inv(1, "read", null, "a"), ok(1, "read", 2L, "a")).verdict()).isEqualTo(Verdict.INVALID);
  }

  @Test
  void aGrantOfUnknownTokenMayBeRevealedByALaterRead() {
    Op[] ops = {
        inv(0, "grant", null, "a"), ok(0, "grant", 3L, "a"),
        inv(1, "grant", null, "a"), Op.info(1, "grant", null).withKey("a"),
        inv(2, "read", null, "a"), ok(2, "read", 7L, "a")};
    assertThat(check(ops).verdict()).isEqualTo(Verdict.VALID);
    // a read of a token below the last known grant is still stale
    ops[5] = ok(2, "read", 2L, "a");
    assertThat(check(ops).verdict()).isEqualTo(Verdict.INVALID);
  }

  @Test
  void namesAreIndependent() {
    Result r = check(
        inv(0, "grant", null, "a"), ok(0, "grant", 5L, "a"),
        inv(1, "grant", null, "b"), ok(1, "grant", 3L, "b"),
        inv(2, "read", null, "b"), ok(2, "read", 3L, "b"),
        inv(2, "read", null, "a"), ok(2, "read", 5L, "a"));
    assertThat(r.verdict()).isEqualTo(Verdict.VALID);
    assertThat(r.keys()).isEqualTo(2);
    Result bad = check(
        inv(0, "grant", null, "a"), ok(0, "grant", 5L, "a"),
        inv(1, "grant", null, "b"), ok(1, "grant", 3L, "b"),
        inv(2, "read", null, "b"), ok(2, "read", 5L, "b"));
    assertThat(bad.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(bad.explanation()).startsWith("key \"b\": ");
  }
}
