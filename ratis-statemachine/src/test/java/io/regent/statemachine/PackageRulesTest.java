package io.regent.statemachine;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The state machine's packages form the layers of docs/architecture.md §1: the Ratis adapter on top, the
 * Ratis-free replica effects below it, then apply and its group and etcd-keyspace ({@code kv}) rules, events,
 * and the store and contract limits at the bottom; no package cycle, no arrow up, every package placed. The
 * generated log-entry protobuf ({@code proto}) is used by all and uses none.
 */
class PackageRulesTest {
  static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.regent.statemachine");
  }

  @Test
  void noPackageCycles() {
    slices().matching("io.regent.statemachine.(*)..").should().beFreeOfCycles().check(main);
  }

  @Test
  void noArrowUpTheLayers() {
    layers("apply", "group").check(main);
  }

  /** Negative control: with group rules declared above apply, apply's use of them is an arrow up. */
  @Test
  void theLayerRuleFlagsAnArrowUp() {
    assertThat(layers("group", "apply").evaluate(main).hasViolation()).isTrue();
  }

  /** The layers top to bottom, with {@code upper} and {@code lower} (apply and group) in the given order. */
  static LayeredArchitecture layers(String upper, String lower) {
    return layeredArchitecture().consideringOnlyDependenciesInLayers().ensureAllClassesAreContainedInArchitecture()
        .layer("Ratis").definedBy("io.regent.statemachine.ratis..")
        .layer("Replica").definedBy("io.regent.statemachine.replica..")
        .layer("Upper").definedBy("io.regent.statemachine." + upper + "..")
        .layer("Lower").definedBy("io.regent.statemachine." + lower + "..", "io.regent.statemachine.kv..")
        .layer("Events").definedBy("io.regent.statemachine.event..")
        .layer("Base").definedBy("io.regent.statemachine.store..", "io.regent.statemachine.limits..",
            "io.regent.statemachine.proto..")
        .whereLayer("Ratis").mayNotBeAccessedByAnyLayer()
        .whereLayer("Replica").mayOnlyBeAccessedByLayers("Ratis")
        .whereLayer("Upper").mayOnlyBeAccessedByLayers("Ratis", "Replica")
        .whereLayer("Lower").mayOnlyBeAccessedByLayers("Ratis", "Replica", "Upper")
        .whereLayer("Events").mayOnlyBeAccessedByLayers("Ratis", "Replica", "Upper", "Lower")
        .whereLayer("Base").mayOnlyBeAccessedByLayers("Ratis", "Replica", "Upper", "Lower", "Events");
  }
}
