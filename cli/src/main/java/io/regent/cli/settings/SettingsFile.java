package io.regent.cli.settings;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * A {@code regent.yaml} file read into setting name → text: one flat mapping whose keys are option names
 * without dashes ({@code api-port: 7101}). A list value ({@code peers: [n1=…, n2=…]}) is joined with commas,
 * as the flag takes it.
 *
 * <p>Every scalar is kept exactly as written: the loader resolves no implicit types, so {@code 0755},
 * {@code 1:20} or {@code yes} reach the option's own converter as text, never as YAML 1.1 numbers or
 * booleans. The safe constructor builds no Java objects other than maps, lists and strings.
 */
final class SettingsFile {
  private SettingsFile() {
  }

  /**
   * Reads {@code file}.
   *
   * @throws IllegalArgumentException with a one-line reason (missing, unreadable, not YAML, duplicate key, a
   *     value that is a mapping or empty) that does not repeat the file name
   */
  static Map<String, String> read(Path file) {
    Object doc;
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      doc = yaml().load(r);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("no such file");
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read it: " + e.getMessage());
    } catch (MarkedYAMLException e) {
      throw new IllegalArgumentException("line " + (e.getProblemMark().getLine() + 1) + ", column "
          + (e.getProblemMark().getColumn() + 1) + ": " + e.getProblem());
    } catch (YAMLException e) {
      throw new IllegalArgumentException("not valid YAML: " + e.getMessage());
    }
    if (doc == null) {
      return Map.of(); // empty, or only comments
    }
    if (!(doc instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException("expected a mapping of settings (key: value), found a "
          + (doc instanceof List ? "list" : "single value"));
    }
    Map<String, String> settings = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : map.entrySet()) {
      String key = String.valueOf(e.getKey());
      settings.put(key, text(key, e.getValue()));
    }
    return settings;
  }

  private static String text(String key, Object value) {
    if (value instanceof List<?> list && list.stream().allMatch(v -> v instanceof String)) {
      return list.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
    if (!(value instanceof String s)) {
      throw new IllegalArgumentException("key '" + key + "' must have a single value or a list of values");
    }
    if (s.isBlank()) {
      throw new IllegalArgumentException("key '" + key + "' has no value (remove the line to use the default)");
    }
    return s.strip();
  }

  private static Yaml yaml() {
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(false);
    DumperOptions dump = new DumperOptions();
    return new Yaml(new SafeConstructor(options), new Representer(dump), dump, options, new TextOnlyResolver());
  }

  /** Resolves every plain scalar to a string: values keep the spelling the operator wrote. */
  private static final class TextOnlyResolver extends Resolver {
    @Override
    protected void addImplicitResolvers() {
      // none: no implicit int, float, bool, null or timestamp
    }
  }
}
