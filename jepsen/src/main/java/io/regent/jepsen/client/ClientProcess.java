package io.regent.jepsen.client;

import io.regent.client.RegentClient;
import io.regent.jepsen.history.Keyword;
import io.regent.jepsen.history.Op;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;

/**
 * One logical Jepsen process: a process number, its own {@link RegentClient} (its own connections),
 * and the recording of its operations. Operations are sequential on the process's thread. Once an
 * operation ends {@code :info} the process is <em>retired</em> (Jepsen's rule: it may still be
 * running that operation), and its slot continues with a new process number and a new client.
 */
public final class ClientProcess implements AutoCloseable {
  private final long id;
  private final RegentClient client;
  private final PauseGate gate;
  private final Recorder recorder;
  private final Duration opTimeout;
  private final Random random;
  private volatile boolean retired;

  /**
   * A process.
   *
   * @param id the process number in the history
   * @param endpoints the node endpoints, already rotated so processes spread over nodes
   * @param gate its slot's pause gate (shared by the slot's successive processes)
   * @param recorder the history
   * @param opTimeout the deadline of one operation
   * @param random its random source
   */
  public ClientProcess(long id, List<String> endpoints, PauseGate gate, Recorder recorder,
      Duration opTimeout, Random random) {
    this.id = id;
    this.client = RegentClient.connect(endpoints);
    this.gate = gate;
    this.recorder = recorder;
    this.opTimeout = opTimeout;
    this.random = random;
  }

  /** The process number. */
  public long id() {
    return id;
  }

  /** The client's name in checker reports and ledger entries: {@code p<id>}. */
  public String name() {
    return "p" + id;
  }

  /** The client. */
  public RegentClient client() {
    return client;
  }

  /** The pause gate. */
  public PauseGate gate() {
    return gate;
  }

  /** The recorder. */
  public Recorder recorder() {
    return recorder;
  }

  /** The random source. */
  public Random random() {
    return random;
  }

  /** The operation deadline. */
  public Duration opTimeout() {
    return opTimeout;
  }

  /** True once an operation ended {@code :info}. */
  public boolean retired() {
    return retired;
  }

  /**
   * Ends this process without an {@code :info}: it has nothing more to do (an ownership member that left
   * the group or crashed never comes back under its id), and its slot goes on with a new process.
   */
  public void retire() {
    retired = true;
  }

  /** Runs a client call under the operation deadline. */
  public <T> T call(Callable<T> body) {
    return Deadline.call(opTimeout, body);
  }

  /** Records an {@code :invoke}; complete it with the returned handle. */
  public Invocation invoke(String f, Object key, Object value) {
    recorder.append(id, Op.Type.INVOKE, f, key, value, null);
    return new Invocation(f, key, value);
  }

  /**
   * Records an operation that happened at one instant (an invoke immediately followed by its ok). A retired
   * process may invoke nothing more (Knossos refuses such a history): what it records then (the end of its
   * belief in a name) goes under {@link #retiredId(long)} instead.
   */
  public void instant(String f, Object key, Object value, Map<String, Object> extra) {
    long as = retired ? retiredId(id) : id;
    recorder.append(as, Op.Type.INVOKE, f, key, value, null);
    recorder.append(as, Op.Type.OK, f, key, value, keywords(extra));
  }

  /** The process number a retired process {@code id} records under: {@code -(id + 1)}, never a live process's. */
  public static long retiredId(long id) {
    return -(id + 1);
  }

  private static Map<Keyword, Object> keywords(Map<String, Object> extra) {
    if (extra == null || extra.isEmpty()) {
      return null;
    }
    Map<Keyword, Object> out = new LinkedHashMap<>();
    extra.forEach((k, v) -> out.put(Keyword.of(k), v));
    return out;
  }

  /** Closes the client's connections. */
  @Override
  public void close() {
    client.close();
  }

  /** The completion side of one operation. */
  public final class Invocation {
    private final String f;
    private final Object key;
    private final Object value;

    private Invocation(String f, Object key, Object value) {
      this.f = f;
      this.key = key;
      this.value = value;
    }

    /** {@code :ok} with the observed value. */
    public void ok(Object value) {
      ok(value, null);
    }

    /** {@code :ok} with the observed value and extra fields. */
    public void ok(Object value, Map<String, Object> extra) {
      recorder.append(id, Op.Type.OK, f, key, value, keywords(extra));
    }

    /** {@code :fail}: certainly did not take effect; carries the invoke's value, as Knossos requires. */
    public void fail(String error) {
      recorder.append(id, Op.Type.FAIL, f, key, value, keywords(Map.of("error", error)));
    }

    /** {@code :info}: may or may not have taken effect; retires the process. */
    public void info(String error) {
      retired = true;
      recorder.append(id, Op.Type.INFO, f, key, null, keywords(Map.of("error", error)));
    }
  }
}
