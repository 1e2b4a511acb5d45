package io.regent.server;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
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
 * The server module's packages form the layers of docs/architecture.md §1: no package cycle, no arrow up the
 * layers, and every package placed in one. A new package must be placed here before it can be used.
 */
class PackageRulesTest {
  /** Top to bottom: a package may use the layers below its own, never one above. */
  static final List<List<String>> LAYERS = List.of(
      List.of("io.regent.server"),
      List.of("io.regent.server.single..", "io.regent.server.cell..", "io.regent.server.ratis..",
          "io.regent.server.metrics..", "io.regent.server.console..", "io.regent.server.etcd..",
          "io.regent.server.security.."),
      List.of("io.regent.server.api.."),
      List.of("io.regent.server.lease..", "io.regent.server.config..", "io.regent.server.batch.."),
      List.of("io.regent.server.confirm..", "io.regent.server.limits..", "io.regent.server.membership..",
          "io.regent.server.storage..", "io.regent.server.concurrent..", "io.regent.server.rpc..",
          "io.regent.server.placement.."),
      List.of("io.regent.server.replication.."));

  static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.regent.server");
  }

  @Test
  void noPackageCycles() {
    slices().matching("io.regent.server.(*)..").should().beFreeOfCycles().check(main);
  }

  @Test
  void noArrowUpTheLayers() {
    layers(LAYERS).check(main);
  }

  /** Negative control: the same rule with the confirmation rules above the API must flag the API's arrows. */
  @Test
  void theLayerRuleFlagsAnArrowUp() {
    List<List<String>> swapped =
        List.of(LAYERS.get(0), LAYERS.get(1), LAYERS.get(4), LAYERS.get(3), LAYERS.get(2), LAYERS.get(5));
    assertThat(layers(swapped).evaluate(main).hasViolation()).isTrue();
  }

  /**
   * The replication port ({@code Proposer}) is the bottom layer: every package that proposes imports it, so it
   * may use nothing else of the server, or a cycle or an arrow up would follow.
   */
  @Test
  void theReplicationPortDependsOnNothingElseInTheServer() {
    noClasses().that().resideInAPackage("io.regent.server.replication..")
        .should().dependOnClassesThat(resideInAPackage("io.regent.server..")
            .and(not(resideInAPackage("io.regent.server.replication.."))))
        .check(main);
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
