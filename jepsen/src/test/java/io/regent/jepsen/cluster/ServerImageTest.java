package io.regent.jepsen.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image of a jar that is no server: the copy is made and used all the same, the archive's failure is written
 * down once (and not tried again), nodes get no archive option, and an image unused for a day goes when another is
 * made. The real jar's archive is {@code ServerImageIT}'s.
 */
class ServerImageTest {
  @TempDir
  Path dir;

  @Test
  void aJarThatServesNothingGetsItsCopyAndNoArchive() throws Exception {
    Path source = Files.writeString(dir.resolve("not-a-server.jar"), "no zip here");
    Path root = dir.resolve("images");

    Path image = ServerImage.of(source, root);

    assertThat(image).hasSameBinaryContentAs(source).startsWith(root);
    assertThat(ServerImage.jvmOptions(image)).isEmpty();
    Path failed = image.resolveSibling("regent.jsa.failed");
    assertThat(Files.readString(failed)).contains("did not serve");
    FileTime written = Files.getLastModifiedTime(failed);
    assertThat(ServerImage.of(source, root)).isEqualTo(image);
    assertThat(Files.getLastModifiedTime(failed)).as("not tried again").isEqualTo(written);
  }

  @Test
  void anotherJarGetsAnotherImageAndAnImageUnusedForADayGoes() throws Exception {
    Path root = dir.resolve("images");
    Path first = ServerImage.of(Files.writeString(dir.resolve("a.jar"), "a"), root);
    Path recent = ServerImage.of(Files.writeString(dir.resolve("b.jar"), "b"), root);
    assertThat(first.getParent()).isNotEqualTo(recent.getParent());
    Files.setLastModifiedTime(first.resolveSibling("last-used"),
        FileTime.from(Instant.now().minus(Duration.ofDays(1).plusMinutes(1))));

    ServerImage.of(Files.writeString(dir.resolve("c.jar"), "c"), root);

    assertThat(first.getParent()).doesNotExist();
    assertThat(recent).exists();
  }

  @Test
  void anArchiveBesideTheJarIsNamedToTheJvm() throws Exception {
    Path jar = Files.writeString(dir.resolve("regent.jar"), "jar");
    Files.writeString(dir.resolve("regent.jsa"), "archive");
    assertThat(ServerImage.jvmOptions(jar)).containsExactly("-XX:SharedArchiveFile=" + dir.resolve("regent.jsa"));
  }
}
