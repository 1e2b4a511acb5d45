package io.regent.cli;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The cli module's packages form the layers of docs/architecture.md §1: no package cycle, no arrow up the
 * layers, and every package placed in one. A new package must be placed here before it can be used.
 */
class PackageRulesTest {
  /** Top to bottom: a package may use the layers below its own, never one above. */
  static final List<List<String>> LAYERS = List.of(
      List.of("io.regent.cli"),
      List.of("io.regent.cli.demo..", "io.regent.cli.ledger..", "io.regent.cli.bench.."),
      List.of("io.regent.cli.cluster.."),
      List.of("io.regent.cli.command.server..", "io.regent.cli.command.group.."),
      List.of("io.regent.cli.command"),
      List.of("io.regent.cli.holder.."),
      List.of("io.regent.cli.output.."),
      List.of("io.regent.cli.settings.."));

  static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.regent.cli");
  }

  @Test
  void noPackageCycles() {
    slices().matching("io.regent.cli.(*)..").should().beFreeOfCycles().check(main);
  }

  /** The rooms under {@code command} (server, group) share only the client mixins below them, never each other. */
  @Test
  void commandRoomsDoNotUseEachOther() {
    slices().matching("io.regent.cli.command.(*)..").should().notDependOnEachOther().check(main);
  }

  @Test
  void noArrowUpTheLayers() {
    layers(LAYERS).check(main);
  }

  /** Negative control: the same rule with holding above the commands must flag the commands' arrows. */
  @Test
  void theLayerRuleFlagsAnArrowUp() {
    List<List<String>> swapped = List.of(LAYERS.get(0), LAYERS.get(1), LAYERS.get(2), LAYERS.get(3), LAYERS.get(5),
        LAYERS.get(4), LAYERS.get(6), LAYERS.get(7));
    assertThat(layers(swapped).evaluate(main).hasViolation()).isTrue();
  }

  /** Layer i may be used by layers 0..i-1 only; every main class must sit in a layer. */
  static LayeredArchitecture layers(List<List<String>> order) {
    LayeredArchitecture rule = layeredArchitecture().consideringOnlyDependenciesInLayers()
        .ensureAllClassesAreContainedInArchitecture();
    for (int i = 0; i < order.size(); i++) {
      rule = rule.layer("L" + i).definedBy(order.get(i).toArray(String[]::new));
    }
    rule = rule.whereLayer("L0").mayNotBeAccessedByAnyLayer();
    for (int i = 1; i < order.size(); i++) {
      String[] above = new String[i];
      for (int j = 0; j < i; j++) {
        above[j] = "L" + j;
      }
      rule = rule.whereLayer("L" + i).mayOnlyBeAccessedByLayers(above);
    }
    return rule;
  }
}
