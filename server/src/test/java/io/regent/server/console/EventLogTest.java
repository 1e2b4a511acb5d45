package io.regent.server.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.ChangeEvent.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The console's event list: numbered, bounded, resumable after a number, and honest about gaps; etcd's keyspace
 * writes are not in it.
 */
class EventLogTest {
  static ChangeEvent event(long index) {
    return new ChangeEvent(Kind.GROUP_CHANGED, "g", null, index, 0);
  }

  static List<Long> seqs(EventLog.Page p) {
    return p.events().stream().map(EventLog.Numbered::seq).toList();
  }

  @Test
  void aPollResumesAfterTheLastNumberSeenAndSaysWhenEventsWereDropped() {
    EventLog log = new EventLog(3);
    assertThat(log.after(-1, 10)).isEqualTo(new EventLog.Page(List.of(), 0, false));
    for (long i = 1; i <= 5; i++) {
      log.accept(event(10 + i));
    }
    EventLog.Page latest = log.after(-1, 2);
    assertThat(seqs(latest)).containsExactly(4L, 5L);
    assertThat(latest.compacted()).as("a first poll is no gap").isFalse();
    assertThat(latest.next()).isEqualTo(5);
    assertThat(seqs(log.after(3, 10))).containsExactly(4L, 5L);
    assertThat(log.after(3, 10).compacted()).isFalse();
    assertThat(log.after(4, 1)).isEqualTo(new EventLog.Page(List.of(new EventLog.Numbered(5, event(15))), 5, false));
    assertThat(log.after(5, 10)).isEqualTo(new EventLog.Page(List.of(), 5, false));

    EventLog.Page old = log.after(1, 10);
    assertThat(old.compacted()).as("events 2 was dropped for capacity").isTrue();
    assertThat(seqs(old)).containsExactly(3L, 4L, 5L);
    EventLog.Page future = log.after(99, 10);
    assertThat(future.compacted()).as("a number this run never gave: the node restarted").isTrue();
    assertThat(future.next()).isEqualTo(5);
  }

  @Test
  void aSnapshotInstallIsAGap() {
    EventLog log = new EventLog(10);
    log.accept(event(1));
    log.accept(event(2));
    log.stateInstalled(null);
    assertThat(log.after(1, 10)).isEqualTo(new EventLog.Page(List.of(), 2, true));
    assertThat(log.after(2, 10)).isEqualTo(new EventLog.Page(List.of(), 2, false));
    log.accept(event(9));
    assertThat(seqs(log.after(2, 10))).containsExactly(3L);
    assertThatThrownBy(() -> new EventLog(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void writesOfEtcdsKeyspaceStayOutOfTheLog() {
    EventLog log = new EventLog(2);
    log.accept(event(1));
    log.accept(new ChangeEvent(Kind.KV_CHANGED, "", null, 2, 0));
    log.accept(new ChangeEvent(Kind.KV_CHANGED, "", null, 3, 0));
    assertThat(log.after(-1, 10)).isEqualTo(new EventLog.Page(List.of(new EventLog.Numbered(1, event(1))), 1, false));
  }
}
