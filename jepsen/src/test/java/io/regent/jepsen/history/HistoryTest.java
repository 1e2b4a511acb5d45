package io.regent.jepsen.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.jepsen.history.Operation.Outcome;
import org.junit.jupiter.api.Test;

class HistoryTest {

  @Test
  void pairsInvokesWithCompletionsPerProcess() {
    History h = History.of(
        Op.invoke(0, "write", 1L),
        Op.invoke(1, "read", null),
        Op.info(Op.NEMESIS, "kill", null),
        Op.ok(1, "read", 1L),
        Op.ok(0, "write", 1L),
        Op.invoke(2, "cas", java.util.List.of(1L, 2L)),
        Op.fail(2, "cas", java.util.List.of(1L, 2L)));
    assertThat(h.operations()).hasSize(3);
    Operation w = h.operations().get(0);
    assertThat(w.invokeIndex()).isZero();
    assertThat(w.completionIndex()).isEqualTo(4);
    assertThat(w.outcome()).isEqualTo(Outcome.OK);
    Operation r = h.operations().get(1);
    assertThat(r.effective().value()).as("an :ok read's value comes from its completion").isEqualTo(1L);
    assertThat(h.operations().get(2).outcome()).isEqualTo(Outcome.FAIL);
    assertThat(h.nemesis()).hasSize(1);
    assertThat(h.size()).isEqualTo(7);
  }

  @Test
  void infoAndMissingCompletionsAreIndeterminate() {
    History h = History.of(
        Op.invoke(0, "write", 1L),
        Op.info(0, "write", 1L),
        Op.invoke(1, "write", 2L),
        Op.invoke(3, "read", null),
        Op.info(3, "read", 7L));
    assertThat(h.operations()).extracting(Operation::outcome).containsOnly(Outcome.INDETERMINATE);
    assertThat(h.operations().get(0).completionIndex()).isEqualTo(1);
    assertThat(h.operations().get(1).completion()).isNull();
    assertThat(h.operations().get(1).completionIndex()).isEqualTo(-1);
    assertThat(h.operations().get(2).effective().value())
        .as("an :info completion supplies a value the invoke lacked").isEqualTo(7L);
    assertThat(h.operations().get(2).effective().type()).isEqualTo(Op.Type.INVOKE);
  }

  @Test
  void aProcessThatInvokesWhileItsOperationIsOpenIsMalformed() {
    assertThatThrownBy(() -> History.of(
        Op.invoke(0, "write", 1L), Op.info(0, "write", null), Op.invoke(0, "read", null)))
        .isInstanceOf(MalformedHistoryException.class)
        .hasMessageContaining("malformed history: event 2")
        .hasMessageContaining("ended :info (its process is retired)");
    assertThatThrownBy(() -> History.of(Op.invoke(1, "write", 2L), Op.invoke(1, "write", 3L)))
        .isInstanceOf(MalformedHistoryException.class)
        .hasMessageContaining("process 1 is still running event 0");
    assertThat(History.of(Op.invoke(0, "write", 1L), Op.ok(0, "write", 1L), Op.invoke(0, "read", null))
        .operations()).as("after :ok the process may go on").hasSize(2);
  }

  @Test
  void aFailWhoseValueIsNotItsInvokesIsMalformed() {
    assertThatThrownBy(() -> History.of(Op.invoke(0, "cas", java.util.List.of(1L, 2L)),
        Op.fail(0, "cas", java.util.List.of(1L, 3L))))
        .isInstanceOf(MalformedHistoryException.class)
        .hasMessageContaining("event 1 is a :fail with value [1 3] but its invoke (event 0) has value [1 2]");
    assertThatThrownBy(() -> History.of(Op.invoke(0, "resign", 7L), Op.fail(0, "resign", null)))
        .isInstanceOf(MalformedHistoryException.class);
    assertThat(History.of(Op.invoke(0, "write", 1L), Op.info(0, "write", null)).operations())
        .as("an :info may carry another value (it says nothing of the outcome)").hasSize(1);
  }

  @Test
  void rejectsCompletionsWithoutInvokeOrWithAnotherF() {
    assertThatThrownBy(() -> History.of(Op.ok(0, "read", 1L)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("completes nothing");
    assertThatThrownBy(() -> History.of(Op.invoke(0, "read", null), Op.ok(0, "write", 1L)))
        .hasMessageContaining(":f :write");
  }

  @Test
  void keysComeFromTheInvokeOrTheCompletion() {
    History h = History.of(Op.invoke(0, "grant", null), Op.ok(0, "grant", 5L).withKey("n"));
    assertThat(h.operations().get(0).key()).isEqualTo("n");
    assertThat(h.operations().get(0).effective().key()).isEqualTo("n");
    assertThat(Op.invoke(1, "read", 3).value()).as("Integer widened to Long").isEqualTo(3L);
  }
}
