package io.regent.cli.settings;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * {@code regent server --print-config}: every setting's effective value and where it came from, printed as
 * a {@code regent.yaml} that gives the same settings (unset ones as comments), e.g.
 * <pre>
 * api-port: 7101                           # environment REGENT_API_PORT
 * data-dir: /var/lib/regent                # config file /etc/regent/regent.yaml, key data-dir
 * # election-timeout:                      # not set: the built-in default
 * </pre>
 */
public final class SettingsReport {
  /** Values printed without quotes; anything else is double-quoted so that YAML reads it back as written. */
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./=,+-][A-Za-z0-9_./=,:+@-]*");
  private static final int COLUMN = 40;

  private SettingsReport() {
  }

  /** Prints the settings of {@code spec} after its arguments were parsed. */
  public static void print(CommandSpec spec, PrintWriter out) {
    ServerSettings settings = spec.defaultValueProvider() instanceof ServerSettings s ? s : new ServerSettings();
    ParseResult parsed = spec.commandLine().getParseResult();
    OptionSpec config = spec.findOption(ServerSettings.CONFIG);
    Object file = config == null ? null : config.getValue();
    out.println("# regent server settings: a flag wins over REGENT_* variables, which win over the config file");
    out.println("# config file: " + (file == null ? "none" : file + (parsed.hasMatchedOption(config) ? ""
        : " (from environment REGENT_CONFIG)")));
    for (OptionSpec o : spec.options()) {
      if (!ServerSettings.configurable(o)) {
        continue;
      }
      String key = ServerSettings.key(o);
      String value = text(o, parsed, settings);
      String origin = parsed.hasMatchedOption(o) ? "flag" : settings.origin(key).orElse("default");
      String line = value == null ? "# " + key + ":" : key + ": " + scalar(value);
      out.println(pad(line) + "# " + (value == null ? "not set: the built-in default" : origin));
    }
    out.flush();
  }

  /**
   * The value of {@code o} as it was written (flag, variable, file or annotation default), so that it reads
   * back through the option's converter; the typed value's text when there is none, Durations as 1500ms / 3s.
   */
  private static String text(OptionSpec o, ParseResult parsed, ServerSettings settings) {
    if (parsed.hasMatchedOption(o)) {
      List<String> written = parsed.matchedOption(o.longestName()).stringValues();
      if (!written.isEmpty()) {
        return String.join(",", written);
      }
    } else {
      Optional<String> supplied = settings.supplied(ServerSettings.key(o));
      if (supplied.isPresent()) {
        return supplied.get();
      }
      if (o.defaultValue() != null) {
        return o.defaultValue();
      }
    }
    Object value = o.getValue();
    if (value instanceof Duration d) {
      return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }
    return value == null ? null : value.toString();
  }

  /** {@code text} as a YAML scalar that reads back as the same string. */
  static String scalar(String text) {
    if (PLAIN.matcher(text).matches() && !text.endsWith(":")) {
      return text;
    }
    return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }

  private static String pad(String line) {
    return line.length() >= COLUMN ? line + " " : line + " ".repeat(COLUMN - line.length());
  }
}
