package io.regent.cli.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The TypeScript client built once per Maven run of the module ({@link BuildCache}), for {@link TypeScriptClientTest}
 * (which runs the package's own tests in it) and {@link ClientInstallTest} (which installs its tarball as a user
 * would): a copy of clients/typescript laid out as the repository is (its build copies the protos from api/),
 * {@code npm ci} without scripts, then {@code npm pack}, whose {@code prepare} builds it ({@code npm run build}:
 * the protos copied in, their types generated, {@code tsc}) once, into {@code dist/}.
 *
 * @param pkg the built package: its sources, tests and examples, {@code node_modules/} and {@code dist/}
 * @param tarball what {@code npm pack} made of it
 */
public record TypeScriptClientBuild(Path pkg, Path tarball) {
  private static final Path CLIENT = Path.of("..", "clients", "typescript").toAbsolutePath().normalize();
  /** What a build in the repository writes (and so a build in the copy makes again): neither copied nor hashed. */
  private static final Set<String> BUILT = Set.of("node_modules", "dist", "proto");
  private static final Path PROTOS =
      Path.of("..", "api", "src", "main", "proto", "regent", "v1").toAbsolutePath().normalize();
  private static final List<String> PROTO_FILES = List.of("regent.proto", "group.proto");

  /**
   * The build of the current sources, made now unless this run (or an earlier one, on the same sources, protos,
   * Node and npm) made it; {@code logs} gets the output of the version checks. Needs Node, npm and the npm registry.
   *
   * @throws AssertionError naming the command and its output when a step fails
   */
  public static TypeScriptClientBuild get(Path logs) throws Exception {
    ContentKey key = new ContentKey().tree(CLIENT, BUILT);
    for (String proto : PROTO_FILES) {
      key.file(PROTOS.resolve(proto));
    }
    for (String tool : List.of("node", "npm")) {
      key.text(CommandRun.run(logs, logs, Map.of(), 60, tool, "--version").ok().output());
    }
    Path dir = BuildCache.get("typescript", key.hex(), TypeScriptClientBuild::build);
    return new TypeScriptClientBuild(dir.resolve("repo/clients/typescript"), BuildCache.onlyFile(dir.resolve("packed"), ".tgz"));
  }

  private static void build(Path dir) throws Exception {
    Path pkg = dir.resolve("repo/clients/typescript");
    SourceTree.copy(CLIENT, pkg, BUILT);
    Path protos = Files.createDirectories(dir.resolve("repo/api/src/main/proto/regent/v1"));
    for (String proto : PROTO_FILES) {
      Files.copy(PROTOS.resolve(proto), protos.resolve(proto));
    }
    Path logs = Files.createDirectories(dir.resolve("logs"));
    // no scripts: npm pack's own prepare builds the package once
    CommandRun.run(pkg, logs, Map.of(), 180, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund").ok();
    Path packed = Files.createDirectories(dir.resolve("packed"));
    CommandRun.run(pkg, logs, Map.of(), 180, "npm", "pack", "--pack-destination", packed.toString()).ok();
  }
}
