package io.regent.cli.settings;

import static org.assertj.core.api.Assertions.assertThat;

import io.regent.cli.command.server.ServerCommand;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine;

/**
 * Every setting of {@code regent server} has a row in the settings reference of docs/operations.md (with its
 * default and unit), and every row names a setting that exists.
 */
class SettingsDocsTest {
  static final Path OPERATIONS = Path.of("..", "docs", "operations.md");

  @Test
  void theSettingsReferenceListsExactlyTheConfigurableOptions() throws IOException {
    Set<String> options = new TreeSet<>();
    for (OptionSpec o : new CommandLine(new ServerCommand()).getCommandSpec().options()) {
      if (ServerSettings.configurable(o)) {
        options.add(ServerSettings.key(o));
      }
    }
    assertThat(documented()).isEqualTo(options);
  }

  /** Keys in the first column of the table under "### Settings reference". */
  private static Set<String> documented() throws IOException {
    String doc = Files.readString(OPERATIONS);
    int start = doc.indexOf("### Settings reference");
    assertThat(start).as("a 'Settings reference' section in %s", OPERATIONS).isNotNegative();
    int table = doc.indexOf("\n| key", start);
    assertThat(table).as("a table whose first column is 'key'").isNotNegative();
    int end = doc.indexOf("\n\n", table);
    Set<String> keys = new TreeSet<>();
    Matcher row = Pattern.compile("(?m)^\\| ([^|]+) \\|").matcher(doc.substring(table, end < 0 ? doc.length() : end));
    while (row.find()) {
      String first = row.group(1);
      if (first.startsWith("key") || first.startsWith("---")) {
        continue;
      }
      Matcher key = Pattern.compile("`([a-z0-9-]+)`").matcher(first);
      while (key.find()) {
        keys.add(key.group(1));
      }
    }
    return keys;
  }
}
