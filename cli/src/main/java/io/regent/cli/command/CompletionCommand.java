package io.regent.cli.command;

import io.regent.cli.output.ExitCodes;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code regent completion bash|zsh}: a shell completion script (picocli's generator) on stdout. */
@Command(name = "completion", mixinStandardHelpOptions = true,
    description = {"Prints a completion script for SHELL (bash or zsh) on stdout.",
        "bash: source <(regent completion bash)   (or save it in /etc/bash_completion.d/regent)",
        "zsh:  source <(regent completion zsh)    (bash-style completion through bashcompinit)"})
public final class CompletionCommand implements Callable<Integer> {
  /** The shells a script is generated for. */
  enum Shell { bash, zsh }

  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "SHELL", description = "${COMPLETION-CANDIDATES}")
  Shell shell;

  @Override
  public Integer call() {
    CommandLine root = spec.root().commandLine();
    String script = AutoComplete.bash("regent", root);
    if (shell == Shell.zsh) {
      script = "autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n" + script;
    }
    spec.commandLine().getOut().print(script);
    spec.commandLine().getOut().flush();
    return ExitCodes.OK;
  }
}
