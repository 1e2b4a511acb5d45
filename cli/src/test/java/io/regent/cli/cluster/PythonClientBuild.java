package io.regent.cli.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/**
 * The Python client built once per Maven run of the module ({@link BuildCache}), for {@code PythonClientTest} (which
 * runs the package's own tests with it) and {@link ClientInstallTest}'s case on Debian's packages: the wheel
 * {@code pip wheel} makes of a copy of clients/python with Debian's setuptools (no build isolation, no index: no
 * network), and a virtual environment of Debian's python3 that sees its packages (python3-grpcio,
 * python3-protobuf, python3-pytest) with that wheel installed from the file, as a user installs it.
 *
 * @param wheel the wheel
 * @param venv the virtual environment it is installed in ({@code bin/python}, {@code bin/pip})
 */
public record PythonClientBuild(Path wheel, Path venv) {
  private static final Path CLIENT = Path.of("..", "clients", "python").toAbsolutePath().normalize();
  /** What a build in the repository writes: neither copied nor hashed. */
  private static final Set<String> BUILT = Set.of("build", "dist", "gen");
  /** Debian's interpreter: its packages install for it, not for a python3 earlier on the PATH. */
  private static final String PYTHON = "/usr/bin/python3";

  /**
   * The build of the current sources, made now unless this run (or an earlier one, on the same sources, python and
   * setuptools) made it; {@code logs} gets the output of the version check.
   *
   * @throws AssertionError naming the command and its output when a step fails
   */
  public static PythonClientBuild get(Path logs) throws Exception {
    // the venv runs this interpreter, and its setuptools builds the wheel
    String tools = CommandRun.run(logs, logs, Map.of(), 60, PYTHON, "-c",
        "import sys, setuptools; print(sys.version, setuptools.__version__)").ok().output();
    String key = new ContentKey().tree(CLIENT, BUILT).text(tools).hex();
    Path dir = BuildCache.get("python", key, PythonClientBuild::build);
    return new PythonClientBuild(BuildCache.onlyFile(dir.resolve("dist"), ".whl"), dir.resolve("venv"));
  }

  private static void build(Path dir) throws Exception {
    Path logs = Files.createDirectories(dir.resolve("logs"));
    // pip builds in the source directory: from a copy, so the repository stays clean
    Path src = dir.resolve("src");
    SourceTree.copy(CLIENT, src, BUILT);
    Path venv = dir.resolve("venv");
    CommandRun.run(dir, logs, Map.of(), 120, PYTHON, "-m", "venv", "--system-site-packages", venv.toString()).ok();
    String pip = venv.resolve("bin/pip").toString();
    CommandRun.run(dir, logs, Map.of(), 180, pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w",
        dir.resolve("dist").toString(), src.toString()).ok();
    CommandRun.run(dir, logs, Map.of(), 120, pip, "install", "--no-index",
        BuildCache.onlyFile(dir.resolve("dist"), ".whl").toString()).ok();
  }
}
