package io.regent.jepsen.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.jepsen.cluster.ServerImage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The real server jar's image (the one every run of {@code verify} starts its nodes from): a copy with a
 * class-data-sharing archive that a JVM started with {@code -Xshare:on}, which refuses to run without it, maps.
 */
@Tag("cluster")
class ServerImageIT {
  @Test
  void theServerJarsImageHasAnArchiveAJvmMaps() throws Exception {
    assertThat(ItSupport.missingJar()).isNull();
    Path image = ServerImage.of(ItSupport.jar());
    Path failed = image.resolveSibling("regent.jsa.failed");
    assertThat(failed).as(Files.exists(failed) ? Files.readString(failed) : "").doesNotExist();
    assertThat(ServerImage.jvmOptions(image)).hasSize(1);

    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xshare:on"));
    cmd.addAll(ServerImage.jvmOptions(image));
    cmd.addAll(List.of("-jar", image.toString(), "--version"));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
    assertThat(out).startsWith("regent ");
    assertThat(ServerImage.of(ItSupport.jar())).isEqualTo(image);
  }
}
