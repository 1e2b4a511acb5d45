package io.regent.bench.jmh;

import io.regent.statemachine.event.ChangeEvent;
import io.regent.statemachine.event.EventHub;
import io.regent.statemachine.proto.Holder;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Observe fan-out on the apply thread: {@code EventHub.publish} of one ownership change to N local
 * listeners (each Observe stream is one listener that filters by name and enqueues). Listeners here only
 * filter and count, so this is the hub's own cost per applied event and listener.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class FanoutBench {
  @Param({"1", "100", "1000"})
  public int listeners;

  private EventHub hub;
  private long index;
  private final AtomicLong delivered = new AtomicLong();
  private Holder holder;

  @Setup(Level.Trial)
  public void setup() {
    hub = new EventHub(10_000);
    holder = Holder.newBuilder().setLeaseId(1).setToken(1).build();
    for (int i = 0; i < listeners; i++) {
      String watched = "name-" + (i % 10);
      hub.listen(e -> {
        if (e.name().equals(watched)) {
          delivered.incrementAndGet();
        }
      });
    }
  }

  /** One applied entry with one ELECTED event. */
  @Benchmark
  public long publish() {
    index++;
    hub.publish(index, List.of(new ChangeEvent(ChangeEvent.Kind.ELECTED, "name-" + (index % 10), holder, index, 1)));
    return delivered.get();
  }
}
