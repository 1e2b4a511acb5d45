package io.regent.cli.command.group;

import picocli.CommandLine.Command;

/** {@code regent group join|status|observe}: ownership groups (docs/ownership.md). */
@Command(name = "group", mixinStandardHelpOptions = true,
    description = "Ownership groups: P partitions spread over live members, each with its own fencing token.",
    subcommands = {GroupJoinCommand.class, GroupStatusCommand.class, GroupObserveCommand.class})
public final class GroupCommand {
}
