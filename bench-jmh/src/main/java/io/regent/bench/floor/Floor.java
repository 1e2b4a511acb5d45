package io.regent.bench.floor;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;

/**
 * The physical floor of a replicated write on this machine: fsync latency of a 4 KiB append (what a Raft
 * log or LMDB commit waits for) and the TCP round trip on loopback (what a replication round waits for).
 * Prints one JSON line per measurement: {@code java -cp bench-jmh/target/benchmarks.jar io.regent.bench.floor.Floor DIR}.
 */
public final class Floor {
  private Floor() {
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args.length > 0 ? args[0] : System.getProperty("java.io.tmpdir"));
    print("fsync_4k", fsync(dir, 500));
    print("loopback_tcp_rtt", rtt(20_000));
  }

  /** Appends 4 KiB and forces it to disk, {@code n} times; latencies in ns. */
  static long[] fsync(Path dir, int n) throws IOException {
    Path f = Files.createTempFile(dir, "fsync-floor", ".bin");
    long[] t = new long[n];
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      ByteBuffer block = ByteBuffer.allocateDirect(4096);
      for (int i = 0; i < n; i++) {
        block.clear();
        long t0 = System.nanoTime();
        ch.write(block);
        ch.force(false);
        t[i] = System.nanoTime() - t0;
      }
    } finally {
      Files.deleteIfExists(f);
    }
    return t;
  }

  /** Ping-pong of 8 bytes over a loopback TCP connection (TCP_NODELAY), {@code n} times; latencies in ns. */
  static long[] rtt(int n) throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread echo = new Thread(() -> {
        try (Socket s = server.accept()) {
          s.setTcpNoDelay(true);
          DataInputStream in = new DataInputStream(s.getInputStream());
          DataOutputStream out = new DataOutputStream(s.getOutputStream());
          for (int i = 0; i < n; i++) {
            out.writeLong(in.readLong());
            out.flush();
          }
        } catch (IOException e) {
          throw new RuntimeException(e);
        }
      }, "echo");
      echo.start();
      long[] t = new long[n];
      try (Socket c = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
        c.setTcpNoDelay(true);
        DataInputStream in = new DataInputStream(c.getInputStream());
        DataOutputStream out = new DataOutputStream(c.getOutputStream());
        for (int i = 0; i < n; i++) {
          long t0 = System.nanoTime();
          out.writeLong(i);
          out.flush();
          in.readLong();
          t[i] = System.nanoTime() - t0;
        }
      }
      echo.join();
      return t;
    }
  }

  private static void print(String what, long[] ns) {
    long[] s = ns.clone();
    Arrays.sort(s);
    System.out.printf(Locale.ROOT, "{\"floor\":\"%s\",\"n\":%d,\"p50_ms\":%.4f,\"p90_ms\":%.4f,\"p99_ms\":%.4f,"
        + "\"max_ms\":%.4f}%n", what, s.length, q(s, .5), q(s, .9), q(s, .99), s[s.length - 1] / 1e6);
  }

  private static double q(long[] sorted, double p) {
    return sorted[Math.min(sorted.length - 1, (int) Math.floor(p * sorted.length))] / 1e6;
  }
}
