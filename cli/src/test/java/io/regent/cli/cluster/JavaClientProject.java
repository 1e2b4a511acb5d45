package io.regent.cli.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.spi.ToolProvider;

/**
 * A Java team's throwaway Maven project that uses the Regent client as a published artifact: {@code regent-api}
 * (its jar, made with the JDK's {@code jar} from the api module's classes, and its pom with the parent pom) put in a
 * file-based Maven repository of its own, a project outside the repository whose pom declares that repository and
 * the dependency, built offline ({@code mvn -o package}: the third-party artifacts come from the build's local
 * repository, read as a mirror, never written) into one jar with its dependencies, whose {@code main} a test runs.
 *
 * <p>The repository is laid out by hand (Maven's layout: {@code group/artifact/version/artifact-version.jar}, as
 * {@code deploy:deploy-file} writes it) because {@code mvn -B verify} does not use the install or deploy plugin,
 * so a clean clone's local repository has neither when this runs offline. Nothing is written to the build's local
 * repository: the project's own is a fresh directory.
 */
final class JavaClientProject {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final String VERSION = System.getProperty("regent.version", "0.1.0-SNAPSHOT");
  /** The build's local repository (cli/pom.xml passes Maven's), read as a mirror of every other repository. */
  private static final Path BUILD_REPOSITORY = Path.of(System.getProperty("regent.m2",
      Path.of(System.getProperty("user.home"), ".m2", "repository").toString()));

  private JavaClientProject() {
  }

  /**
   * Publishes regent-api into a file repository under {@code work}, writes the project there with {@code sources}
   * (files of the examples module, copied into its package), builds it offline and returns its jar.
   *
   * @throws AssertionError naming the command and its output when a step fails
   */
  static Path build(Path work, List<String> sources) throws Exception {
    Path repo = work.resolve("repository");
    publish(repo, "regent-parent", ROOT.resolve("pom.xml"), null);
    Path jar = Files.createDirectories(work.resolve("jar")).resolve("regent-api.jar");
    ToolProvider tool = ToolProvider.findFirst("jar").orElseThrow();
    int code = tool.run(System.out, System.err, "--create", "--file", jar.toString(), "-C",
        ROOT.resolve("api/target/classes").toString(), ".");
    if (code != 0) {
      throw new AssertionError("jar exited with " + code);
    }
    publish(repo, "regent-api", ROOT.resolve("api/pom.xml"), jar);

    Path app = work.resolve("app");
    Path pkg = Files.createDirectories(app.resolve("src/main/java/io/regent/examples"));
    for (String source : sources) {
      Files.copy(ROOT.resolve("examples/src/main/java/io/regent/examples").resolve(source), pkg.resolve(source));
    }
    Files.writeString(app.resolve("pom.xml"), pom(repo));
    Files.writeString(work.resolve("settings.xml"), """
        <settings>
          <mirrors>
            <!-- every repository but the team's own is read from the build's local repository -->
            <mirror><id>build</id><mirrorOf>*,!regent-local</mirrorOf><url>%s</url></mirror>
          </mirrors>
        </settings>
        """.formatted(BUILD_REPOSITORY.toUri()));
    // -o: no network. aether.offline.protocols=file lets an offline build read file: repositories.
    CommandRun.run(app, work, Map.of(), 300, "mvn", "-B", "-q", "-o", "-Daether.offline.protocols=file",
        "-s", work.resolve("settings.xml").toString(), "-Dmaven.repo.local=" + work.resolve("local"),
        "package").ok();
    return app.resolve("target/app.jar");
  }

  /** The command that runs {@code mainClass} of {@code jar} with {@code args}, on this JVM's {@code java}. */
  static String[] java(Path jar, String mainClass, String... args) {
    String[] command = new String[4 + args.length];
    command[0] = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    command[1] = "-cp";
    command[2] = jar.toString();
    command[3] = mainClass;
    System.arraycopy(args, 0, command, 4, args.length);
    return command;
  }

  /** Copies {@code pom} (and {@code jar} when not null) of io.regent:{@code artifact} into {@code repo}'s layout. */
  private static void publish(Path repo, String artifact, Path pom, Path jar) throws Exception {
    Path dir = Files.createDirectories(repo.resolve("io/regent").resolve(artifact).resolve(VERSION));
    Files.copy(pom, dir.resolve(artifact + "-" + VERSION + ".pom"));
    if (jar != null) {
      Files.copy(jar, dir.resolve(artifact + "-" + VERSION + ".jar"));
    }
  }

  /** The team's pom: its repository, the client, and plugin versions the build's local repository holds. */
  private static String pom(Path repo) {
    return """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>com.example</groupId>
          <artifactId>a-team-service</artifactId>
          <version>1.0.0</version>
          <properties>
            <maven.compiler.release>17</maven.compiler.release>
            <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
          </properties>
          <repositories>
            <repository><id>regent-local</id><url>%s</url></repository>
          </repositories>
          <dependencies>
            <dependency><groupId>io.regent</groupId><artifactId>regent-api</artifactId><version>%s</version></dependency>
          </dependencies>
          <build>
            <plugins>
              <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
              <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.14.1</version></plugin>
              <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.5.4</version></plugin>
              <plugin><artifactId>maven-jar-plugin</artifactId><version>3.4.2</version></plugin>
              <plugin>
                <artifactId>maven-shade-plugin</artifactId><version>3.6.0</version>
                <executions>
                  <execution>
                    <phase>package</phase><goals><goal>shade</goal></goals>
                    <configuration>
                      <finalName>app</finalName>
                      <createDependencyReducedPom>false</createDependencyReducedPom>
                      <transformers>
                        <!-- gRPC finds its name resolvers and transports through META-INF/services -->
                        <transformer implementation="org.apache.maven.plugins.shade.resource.ServicesResourceTransformer"/>
                      </transformers>
                    </configuration>
                  </execution>
                </executions>
              </plugin>
            </plugins>
          </build>
        </project>
        """.formatted(repo.toUri(), VERSION);
  }
}
