package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The launcher's commands: option checking and exit codes (no cluster involved). */
class CommandsTest {
  private static int run(String... args) {
    CommandLine cl = new CommandLine(new Main());
    cl.setErr(new PrintWriter(new StringWriter()));
    cl.setOut(new PrintWriter(new StringWriter()));
    return cl.execute(args);
  }

  @Test
  void badOptionsAreUsageErrors() {
    assertThat(run("test", "--nemesis", "kill,flood")).isEqualTo(2);
    assertThat(run("test", "--nodes", "4")).isEqualTo(2);
    assertThat(run("test", "--workload", "queue")).isEqualTo(2);
    assertThat(run("test", "--target", "mars")).isEqualTo(2);
    assertThat(run()).isEqualTo(2);
    assertThat(run("overload", "--nodes", "4")).isEqualTo(2);
    assertThat(run("overload", "--holders", "0")).isEqualTo(2);
  }

  @Test
  void cellsReachTheServersAndTheTestsName() {
    TestCommand t = new TestCommand();
    new CommandLine(t).parseArgs("--workload", "election", "--cells", "4", "--nemesis", "kill");
    assertThat(t.options().cells()).isEqualTo(4);
    assertThat(t.options().testName()).isEqualTo("election-3n-kill-4cells");
    assertThat(run("test", "--workload", "ledger", "--cells", "4")).as("a workload that stays in one cell")
        .isEqualTo(2);
    assertThat(run("test", "--target", "single-writer", "--cells", "4")).isEqualTo(2);
    assertThat(run("test", "--cells", "0")).isEqualTo(2);
  }

  @Test
  void optionsBecomeRunOptions() {
    TestCommand t = new TestCommand();
    new CommandLine(t).parseArgs("--workload", "ledger", "--nodes", "5", "--time-limit", "90", "--nemesis",
        "kill,partition,kill", "--concurrency", "8", "--negative-control", "--seed", "9");
    RunOptions o = t.options();
    assertThat(o.nemesis()).containsExactly("kill", "partition");
    assertThat(o.timeLimit().toSeconds()).isEqualTo(90);
    assertThat(o.testName()).isEqualTo("ledger-5n-kill+partition-negative-control");
    assertThat(o.seed()).isEqualTo(9);
    assertThat(o.network()).isEqualTo("auto");
    assertThat(o.storeRoot()).isNotNull();
    new CommandLine(t).parseArgs("--network", "loopback", "--store", "s", "--jar", "r.jar");
    assertThat(t.options()).extracting(RunOptions::network, RunOptions::storeRoot, RunOptions::jar)
        .containsExactly("loopback", Path.of("s"), Path.of("r.jar"));
  }

  @Test
  void exitCodesFollowTheVerdict() {
    assertThat(new TestRun.RunOutcome(io.regent.jepsen.checker.Verdict.VALID, Path.of("."), "").exitCode()).isZero();
    assertThat(new TestRun.RunOutcome(io.regent.jepsen.checker.Verdict.INVALID, Path.of("."), "").exitCode()).isOne();
    assertThat(new TestRun.RunOutcome(io.regent.jepsen.checker.Verdict.UNKNOWN, Path.of("."), "").exitCode())
        .isEqualTo(2);
  }

  @Test
  void checkReChecksAStoredHistory(@TempDir Path dir) throws Exception {
    Path good = dir.resolve("good.edn");
    Files.writeString(good, """
        [{:process 0, :type :invoke, :f :grant, :value nil, :key "e0"}
         {:process 0, :type :ok, :f :grant, :value 10, :key "e0"}
         {:process 1, :type :invoke, :f :read, :value nil, :key "e0"}
         {:process 1, :type :ok, :f :read, :value 10, :key "e0"}]
        """);
    Path bad = dir.resolve("bad.edn");
    Files.writeString(bad, Files.readString(good).replace(":ok, :f :read, :value 10", ":ok, :f :read, :value 9"));
    Path garbage = dir.resolve("garbage.edn");
    Files.writeString(garbage, "[{:process 0 :type :ok}]");
    assertThat(run("check", good.toString())).isZero();
    assertThat(run("check", bad.toString())).isOne();
    assertThat(run("check", "--model", "election", bad.toString())).isOne();
    assertThat(run("check", garbage.toString())).isEqualTo(2);
  }

  @Test
  void checkRefusesToPassOnNothingOrOnAMalformedHistory(@TempDir Path dir) throws Exception {
    Path cas = dir.resolve("cas.edn");
    Files.writeString(cas, """
        [{:process 0, :type :invoke, :f :write, :value 1}
         {:process 0, :type :ok, :f :write, :value 1}]
        """);
    assertThat(run("check", cas.toString())).as("cas-register, detected").isZero();
    assertThat(run("check", "--model", "fenced-register", cas.toString()))
        .as("no op the fenced register reads: unknown, not valid").isEqualTo(2);
    Path reused = dir.resolve("reused.edn");
    Files.writeString(reused, """
        [{:process 0, :type :invoke, :f :write, :value 1}
         {:process 0, :type :info, :f :write, :value 1}
         {:process 0, :type :invoke, :f :write, :value 2}
         {:process 0, :type :ok, :f :write, :value 2}]
        """);
    assertThat(run("check", reused.toString())).as("process reused after :info").isEqualTo(2);
    Path failValue = dir.resolve("fail-value.edn");
    Files.writeString(failValue, """
        [{:process 0, :type :invoke, :f :cas, :value [1 2]}
         {:process 0, :type :fail, :f :cas, :value [1 3]}]
        """);
    assertThat(run("check", failValue.toString())).as(":fail value differs from its invoke").isEqualTo(2);
  }

  @Test
  void maxConfigsIsTheSearchBudget(@TempDir Path dir) throws Exception {
    StringBuilder edn = new StringBuilder("[");
    for (int p = 0; p < 6; p++) {
      edn.append("{:process ").append(p).append(", :type :invoke, :f :write, :value ").append(p).append("}\n");
    }
    for (int p = 0; p < 6; p++) {
      edn.append("{:process ").append(p).append(", :type :ok, :f :write, :value ").append(p).append("}\n");
    }
    Path h = dir.resolve("concurrent.edn");
    Files.writeString(h, edn.append("]").toString());
    assertThat(run("check", h.toString())).isZero();
    assertThat(run("check", "--max-configs", "3", h.toString())).as("budget spent: unknown").isEqualTo(2);
    assertThat(run("check", "--max-configs", "0", h.toString())).as("bad usage").isEqualTo(2);
  }
}
