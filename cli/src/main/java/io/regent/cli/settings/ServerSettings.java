package io.regent.cli.settings;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * Where {@code regent server} takes a setting that is not given as a flag: the environment variable
 * {@code REGENT_<NAME>} (the option's long name in upper case, dashes as underscores: {@code --api-port} →
 * {@code REGENT_API_PORT}), else the key {@code <name>} of the {@code --config} YAML file
 * ({@code api-port: 7101}), else the option's own default. Flags win over all of them.
 *
 * <p>It works over whatever options the command declares, so a new option is configurable with no change
 * here. Exceptions, which only a flag can set: {@code --help}, {@code --version}, {@code --config} itself
 * (from {@code $REGENT_CONFIG} too), {@code --print-config}, hidden options (the test-only switches must never
 * be switched on by a stray variable), and boolean switches of arity 0. A switch becomes configurable when
 * it is declared {@code arity = "0..1", fallbackValue = "true"}: with arity 0, picocli inverts a default of
 * {@code true} when the flag is also given, which would turn "file and flag both say yes" into "no".
 *
 * <p>Unknown or flag-only keys in the file are usage errors naming the key and the file. Variables are
 * read only for settings that exist: other {@code REGENT_*} variables are ignored, among them the client
 * commands' {@code REGENT_ENDPOINTS} and {@code REGENT_FENCING_TOKEN} (docs/architecture.md §7), which are never read
 * here even if a server option of that name appears. An empty variable counts as unset (systemd's
 * {@code EnvironmentFile} habit).
 */
public final class ServerSettings implements IDefaultValueProvider {
  /** The option naming the YAML file. */
  public static final String CONFIG = "--config";
  /** The option that prints the effective settings. */
  public static final String PRINT_CONFIG = "--print-config";
  /** Prefix of the environment variables. */
  static final String ENV_PREFIX = "REGENT_";
  /** Variables with a meaning for the client commands; never server settings. */
  static final Set<String> RESERVED_ENV = Set.of("REGENT_ENDPOINTS", "REGENT_FENCING_TOKEN", "REGENT_JAVA_OPTS");

  private final Map<String, String> env;
  private final Map<String, String> origins = new ConcurrentHashMap<>();
  private final Map<String, String> supplied = new ConcurrentHashMap<>();
  private volatile Loaded loaded;

  /** Settings from this process's environment. */
  public ServerSettings() {
    this(System.getenv());
  }

  /** Settings from {@code env} instead of the process environment (tests). */
  public ServerSettings(Map<String, String> env) {
    this.env = Map.copyOf(env);
  }

  /** The key of {@code option} in the file: its long name without dashes. */
  static String key(OptionSpec option) {
    return option.longestName().replaceFirst("^-+", "");
  }

  /** The environment variable of {@code option}: {@code REGENT_} + key in upper case, dashes as underscores. */
  static String envName(OptionSpec option) {
    return ENV_PREFIX + key(option).toUpperCase(Locale.ROOT).replace('-', '_');
  }

  /**
   * The variables {@code regent server} reads: {@code REGENT_CONFIG} and each option's {@code REGENT_<NAME>}.
   *
   * @param server the spec of {@code regent server}'s command, whose options are the settings
   */
  public static Set<String> serverVariables(CommandSpec server) {
    Set<String> names = new TreeSet<>();
    names.add(ENV_PREFIX + "CONFIG");
    for (OptionSpec o : server.options()) {
      if (configurable(o)) {
        names.add(envName(o));
      }
    }
    return names;
  }

  /** Whether the file and the environment may set {@code option} (see the class comment). */
  static boolean configurable(OptionSpec option) {
    return !option.usageHelp() && !option.versionHelp() && !option.hidden()
        && !option.longestName().equals(CONFIG) && !option.longestName().equals(PRINT_CONFIG)
        && !(option.arity().max() == 0 && isBoolean(option))
        && !RESERVED_ENV.contains(envName(option));
  }

  @Override
  public String defaultValue(ArgSpec arg) {
    if (!(arg instanceof OptionSpec option)) {
      return null;
    }
    if (option.longestName().equals(CONFIG)) {
      return nonEmpty(env.get(ENV_PREFIX + "CONFIG")).orElse(null);
    }
    if (!configurable(option)) {
      return null;
    }
    String key = key(option);
    Optional<String> fromEnv = nonEmpty(env.get(envName(option)));
    if (fromEnv.isPresent()) {
      return record(key, fromEnv.get(), "environment " + envName(option));
    }
    Loaded file = load(option.command());
    String fromFile = file == null ? null : file.values.get(key);
    return fromFile == null ? null : record(key, fromFile, "config file " + file.path + ", key " + key);
  }

  /**
   * Where the value of {@code key} came from when it was not a flag: {@code environment REGENT_X} or
   * {@code config file PATH, key x}; empty for a default.
   */
  public Optional<String> origin(String key) {
    return Optional.ofNullable(origins.get(key));
  }

  /** The text this provider supplied for {@code key} (from a variable or the file), if it did. */
  Optional<String> supplied(String key) {
    return Optional.ofNullable(supplied.get(key));
  }

  /**
   * Reads and checks the {@code --config} file of {@code command} once per path; {@code null} when there is
   * none.
   *
   * @throws ParameterException (exit 2) naming the file when it cannot be read or has an unknown key
   */
  public Loaded load(CommandSpec command) {
    OptionSpec configOption = command.findOption(CONFIG);
    Object value = configOption == null ? null : configOption.getValue();
    // picocli fills defaults in declaration order: --config may not have its REGENT_CONFIG default yet
    Optional<String> name = value != null ? Optional.of(value.toString()) : nonEmpty(env.get(ENV_PREFIX + "CONFIG"));
    if (name.isEmpty()) {
      return null;
    }
    Path path = Path.of(name.get());
    Loaded l = loaded;
    if (l != null && l.path.equals(path)) {
      return l;
    }
    Map<String, String> values;
    try {
      values = SettingsFile.read(path);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(command.commandLine(), "config file " + path + ": " + e.getMessage());
    }
    Set<String> known = new TreeSet<>();
    Set<String> flagOnly = new TreeSet<>();
    for (OptionSpec o : command.options()) {
      (configurable(o) ? known : flagOnly).add(key(o));
    }
    for (String key : values.keySet()) {
      if (flagOnly.contains(key)) {
        throw new ParameterException(command.commandLine(), "config file " + path + ": key '" + key
            + "' can only be given as a flag");
      }
      if (!known.contains(key)) {
        throw new ParameterException(command.commandLine(), "config file " + path + ": unknown key '" + key
            + "' (known keys: " + String.join(", ", known) + ")");
      }
    }
    l = new Loaded(path, values);
    loaded = l;
    return l;
  }

  /**
   * The source of a value that failed conversion, e.g. {@code config file /etc/regent.yaml, key api-port},
   * when this provider supplied it; empty when it came from the command line.
   */
  public static Optional<String> originOf(ParameterException e) {
    if (!(e.getArgSpec() instanceof OptionSpec option)
        || !(option.command().defaultValueProvider() instanceof ServerSettings settings)) {
      return Optional.empty();
    }
    String key = key(option);
    String value = settings.supplied.get(key);
    return value != null && value.equals(e.getValue()) ? settings.origin(key) : Optional.empty();
  }

  private String record(String key, String value, String origin) {
    origins.put(key, origin);
    supplied.put(key, value);
    return value;
  }

  private static boolean isBoolean(OptionSpec option) {
    return option.type() == boolean.class || option.type() == Boolean.class;
  }

  private static Optional<String> nonEmpty(String s) {
    return s == null || s.isBlank() ? Optional.empty() : Optional.of(s);
  }

  /** A file that was read: its path and its settings (key to value as written). */
  public record Loaded(Path path, Map<String, String> values) {
  }
}
