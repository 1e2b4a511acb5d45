package io.regent.bench.jfr;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a JFR recording of a Regent node spent its time: CPU samples by top frame, by thread group and by
 * component (a sample counts for every component with a frame on its stack), native-method samples, fsync
 * ({@code jdk.FileForce}), lock contention and GC pauses. Usage: {@code JfrTop FILE.jfr [TOP]}.
 */
public final class JfrTop {
  /** Components, by the package prefix of a frame on the stack. */
  private static final Map<String, String> COMPONENTS = new LinkedHashMap<>();

  static {
    COMPONENTS.put("LMDB (org.lmdbjava, jnr)", "org.lmdbjava.|jnr.");
    COMPONENTS.put("Regent apply (io.regent.statemachine)", "io.regent.statemachine.");
    COMPONENTS.put("Regent server (io.regent.server)", "io.regent.server.");
    COMPONENTS.put("Ratis log (raftlog, segmented)", "org.apache.ratis.server.raftlog.");
    COMPONENTS.put("Ratis server other", "org.apache.ratis.server.");
    COMPONENTS.put("Ratis gRPC (replication)", "org.apache.ratis.grpc.|org.apache.ratis.thirdparty.io.grpc.");
    COMPONENTS.put("gRPC public API (io.grpc)", "io.grpc.");
    COMPONENTS.put("protobuf", "com.google.protobuf.|org.apache.ratis.thirdparty.com.google.protobuf.");
    COMPONENTS.put("logging", "ch.qos.logback.|org.slf4j.");
    COMPONENTS.put("file I/O (sun.nio.ch, java.io)", "sun.nio.ch.FileChannelImpl|java.io.FileOutputStream|"
        + "sun.nio.ch.FileDispatcherImpl");
  }

  private JfrTop() {
  }

  public static void main(String[] args) throws Exception {
    int top = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    Map<String, Long> topFrames = new HashMap<>();
    Map<String, Long> nativeFrames = new HashMap<>();
    Map<String, Long> threads = new HashMap<>();
    Map<String, Long> components = new HashMap<>();
    Map<String, Duration> monitors = new HashMap<>();
    long samples = 0;
    long nativeSamples = 0;
    long forces = 0;
    Duration forceTime = Duration.ZERO;
    Duration gc = Duration.ZERO;
    long gcs = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(args[0]))) {
      String type = e.getEventType().getName();
      switch (type) {
        case "jdk.ExecutionSample" -> {
          samples++;
          RecordedStackTrace st = e.getStackTrace();
          add(topFrames, st == null || st.getFrames().isEmpty() ? "?" : frame(st.getFrames().get(0)));
          add(threads, e.getThread("sampledThread") == null ? "?"
              : e.getThread("sampledThread").getJavaName().replaceAll("\\d+", "N"));
          if (st != null) {
            for (Map.Entry<String, String> c : COMPONENTS.entrySet()) {
              if (st.getFrames().stream().anyMatch(f -> matches(f, c.getValue()))) {
                add(components, c.getKey());
              }
            }
          }
        }
        case "jdk.NativeMethodSample" -> {
          nativeSamples++;
          RecordedStackTrace st = e.getStackTrace();
          add(nativeFrames, st == null ? "?" : firstJava(st.getFrames()));
        }
        case "jdk.FileForce" -> {
          forces++;
          forceTime = forceTime.plus(e.getDuration());
        }
        case "jdk.JavaMonitorEnter" -> monitors.merge(e.getClass("monitorClass") == null ? "?"
            : e.getClass("monitorClass").getName(), e.getDuration(), Duration::plus);
        case "jdk.GarbageCollection" -> {
          gcs++;
          gc = gc.plus(e.getDuration());
        }
        default -> {
        }
      }
    }
    System.out.printf(Locale.ROOT, "## %s: %d CPU samples, %d native samples%n", args[0], samples, nativeSamples);
    print("CPU samples by top frame", topFrames, samples, top);
    print("CPU samples by component (inclusive)", components, samples, top);
    print("CPU samples by thread (digits folded)", threads, samples, top);
    print("native-method samples by first Java frame (threads blocked in native code, e.g. fsync)", nativeFrames,
        nativeSamples, top);
    System.out.printf(Locale.ROOT, "%nfsync (jdk.FileForce over threshold): %d events, %.1f ms in total%n", forces,
        forceTime.toNanos() / 1e6);
    System.out.printf(Locale.ROOT, "GC: %d collections, %.1f ms in total%n", gcs, gc.toNanos() / 1e6);
    System.out.println("\nmonitor contention (jdk.JavaMonitorEnter), total blocked time:");
    monitors.entrySet().stream().sorted(Map.Entry.<String, Duration>comparingByValue().reversed()).limit(top)
        .forEach(m -> System.out.printf(Locale.ROOT, "  %10.1f ms  %s%n", m.getValue().toNanos() / 1e6, m.getKey()));
  }

  private static boolean matches(RecordedFrame f, String prefixes) {
    String name = f.getMethod().getType().getName();
    for (String p : prefixes.split("\\|")) {
      if (name.startsWith(p)) {
        return true;
      }
    }
    return false;
  }

  private static String frame(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  private static String firstJava(List<RecordedFrame> frames) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < Math.min(3, frames.size()); i++) {
      b.append(i == 0 ? "" : " < ").append(frame(frames.get(i)));
    }
    return b.toString();
  }

  private static void add(Map<String, Long> m, String k) {
    m.merge(k, 1L, Long::sum);
  }

  private static void print(String title, Map<String, Long> counts, long total, int top) {
    System.out.println("\n" + title + ":");
    counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
        .forEach(c -> System.out.printf(Locale.ROOT, "  %5.1f%%  %6d  %s%n", 100.0 * c.getValue() / Math.max(1, total),
            c.getValue(), c.getKey()));
  }
}
