package io.regent.jepsen.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * While one JVM makes an image, another cannot take its lock: a clean-clone verify once had both failsafe JVMs make
 * the archive at once (the first's file lock was released when setting the lock file's time closed a descriptor of
 * it), and one's archive vanished under it. A stand-in server that serves only once a gate file exists holds the
 * making JVM inside its lock; a second JVM then tries the lock.
 */
class ServerImageLockTest {
  @TempDir
  Path dir;

  @Test
  void anotherJvmCannotTakeTheLockWhileAnImageIsMade() throws Exception {
    Path gate = dir.resolve("gate");
    Path jar = standInServer(gate);
    Path root = dir.resolve("images");
    CompletableFuture<Path> making = CompletableFuture.supplyAsync(() -> {
      try {
        return ServerImage.of(jar, root);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
    try {
      Path started = dir.resolve("started");
      // the stand-in writes this file once it runs: the maker is then inside its lock, training
      await().atMost(60, TimeUnit.SECONDS).until(() -> Files.exists(started));
      Path lock;
      try (var images = Files.list(root)) {
        lock = images.findFirst().orElseThrow().resolve(".lock");
      }
      assertThat(tryLockFromAnotherJvm(lock)).as("the second JVM's tryLock").isEqualTo("held");
    } finally {
      Files.writeString(gate, "open");
    }
    Path image = making.get(60, TimeUnit.SECONDS);
    assertThat(image).hasSameBinaryContentAs(jar);
  }

  /**
   * A jar whose main writes {@code started}, waits for the gate, then prints the line a serving node prints and
   * runs until stopped; with {@code --version} it prints one line and ends, as {@code regent --version} does.
   */
  private Path standInServer(Path gate) throws IOException {
    Path src = Files.createDirectories(dir.resolve("src"));
    Files.writeString(src.resolve("StandIn.java"), """
        import java.nio.file.*;
        public class StandIn {
          public static void main(String[] args) throws Exception {
            if (args[0].equals("--version")) {
              System.out.println("stand-in");
              return;
            }
            Files.writeString(Path.of(%s), "running");
            while (!Files.exists(Path.of(%s))) {
              Thread.sleep(10); // a poll of the gate, as Awaitility polls
            }
            System.out.println("node n1 serving the API on 127.0.0.1:1");
            Thread.currentThread().join();
          }
        }
        """.formatted(quoted(dir.resolve("started")), quoted(gate)));
    Path classes = Files.createDirectories(dir.resolve("classes"));
    int rc = ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(),
        src.resolve("StandIn.java").toString());
    assertThat(rc).as("javac").isZero();
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "StandIn");
    Path jar = dir.resolve("stand-in.jar");
    try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, manifest)) {
      j.putNextEntry(new JarEntry("StandIn.class"));
      j.write(Files.readAllBytes(classes.resolve("StandIn.class")));
      j.closeEntry();
    }
    return jar;
  }

  /** {@code held} or {@code taken}: what a JVM of its own gets from {@code FileChannel.tryLock} on {@code lock}. */
  private String tryLockFromAnotherJvm(Path lock) throws Exception {
    Path src = dir.resolve("TryLock.java");
    Files.writeString(src, """
        import java.nio.channels.FileChannel;
        import java.nio.file.*;
        public class TryLock {
          public static void main(String[] args) throws Exception {
            try (FileChannel ch = FileChannel.open(Path.of(args[0]), StandardOpenOption.WRITE)) {
              System.out.print(ch.tryLock() == null ? "held" : "taken");
            }
          }
        }
        """);
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        src.toString(), lock.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor()).as(out).isZero();
    return out;
  }

  private static String quoted(Path p) {
    return "\"" + p.toString().replace("\\", "\\\\") + "\"";
  }
}
