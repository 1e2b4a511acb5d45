package io.regent.cli.output;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.regent.cli.settings.ServerSettings;
import io.regent.fencing.StaleTokenException;
import io.regent.statemachine.store.DataDirDamagedException;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine;

/**
 * The one place where failures become exit codes and one-line error messages (docs/architecture.md §7):
 * 0 ok, 1 error, 2 usage, 3 no leader / not found / not acquired in time, 4 stale fencing token, 5 cluster
 * unavailable or timed out (UNAVAILABLE, DEADLINE_EXCEEDED: retrying later may succeed; a TLS misconfiguration,
 * which retrying cannot mend, is 1).
 */
public final class ExitCodes implements IExecutionExceptionHandler, IParameterExceptionHandler {
  public static final int OK = 0;
  public static final int ERROR = 1;
  public static final int USAGE = 2;
  public static final int NOT_FOUND = 3;
  public static final int STALE_TOKEN = 4;
  public static final int UNAVAILABLE = 5;
  /** The {@code --help} footer line that lists the codes. */
  public static final String FOOTER = "Exit codes: 0 ok, 1 error, 2 usage, 3 no leader / not found / not acquired "
      + "in time (--timeout, --no-wait), 4 stale fencing token, 5 cluster unavailable or timed out (retryable).";

  /** The exit code for a gRPC status code. */
  public static int forStatus(Status.Code code) {
    return switch (code) {
      case OK -> OK;
      case NOT_FOUND -> NOT_FOUND;
      case FAILED_PRECONDITION -> STALE_TOKEN;
      case UNAVAILABLE, DEADLINE_EXCEEDED -> UNAVAILABLE;
      default -> ERROR;
    };
  }

  /** The exit code for any failure of a command's body. */
  public static int forException(Throwable t) {
    if (t instanceof StaleTokenException) {
      return STALE_TOKEN;
    }
    if (t instanceof NotAcquiredException) {
      return NOT_FOUND;
    }
    StatusRuntimeException s = statusOf(t);
    if (s != null) {
      return TlsHints.explain(s.getStatus()) != null ? ERROR : forStatus(s.getStatus().getCode());
    }
    return t instanceof ParameterException ? USAGE : ERROR;
  }

  /** The one-line message (without the {@code error: } prefix) for a failure. */
  public static String message(Throwable t) {
    StatusRuntimeException s = statusOf(t);
    if (s != null) {
      Status st = s.getStatus();
      String tls = TlsHints.explain(st);
      if (tls != null) {
        return st.getCode().name() + ": " + tls;
      }
      StringBuilder b = new StringBuilder(st.getCode().name());
      if (st.getDescription() != null) {
        b.append(": ").append(st.getDescription());
      }
      if (st.getCause() != null && st.getCause().getMessage() != null) {
        b.append(" (").append(st.getCause().getMessage()).append(')');
      }
      return oneLine(b.toString());
    }
    for (Throwable c = t; c != null && c.getCause() != c; c = c.getCause()) {
      if (c instanceof DataDirDamagedException d) {
        return oneLine(d.getMessage()); // wrapped by Ratis's start-up: the cause is what the operator needs
      }
    }
    String m = t.getMessage();
    return oneLine(m == null || m.isBlank() ? t.toString() : m);
  }

  @Override
  public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
    if (ex instanceof ParameterException pe) {
      return handleParseException(pe, new String[0]);
    }
    cmd.getErr().println("error: " + message(ex));
    cmd.getErr().flush();
    return forException(ex);
  }

  @Override
  public int handleParseException(ParameterException ex, String[] args) {
    CommandLine cmd = ex.getCommandLine();
    // picocli's own messages may start with "Error: "; the line already does.
    String message = oneLine(ex.getMessage()).replaceFirst("^Error: ", "");
    // a bad value from REGENT_* or the config file: say where it was written
    message = ServerSettings.originOf(ex).map(o -> o + ": ").orElse("") + message;
    cmd.getErr().println("error: " + message + " (see '"
        + cmd.getCommandSpec().qualifiedName() + " --help')");
    cmd.getErr().flush();
    return USAGE;
  }

  private static StatusRuntimeException statusOf(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof StatusRuntimeException s) {
        return s;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return null;
  }

  private static String oneLine(String s) {
    return s.strip().replaceAll("\\s*[\\r\\n]+\\s*", " ");
  }
}
