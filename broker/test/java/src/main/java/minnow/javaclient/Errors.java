package minnow.javaclient;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Exceptions as the scenarios report them: the client's own exception, not the future's wrapper. */
final class Errors {
  private Errors() {}

  static Throwable unwrap(Throwable e) {
    while ((e instanceof ExecutionException || e instanceof CompletionException) && e.getCause() != null) e = e.getCause();
    return e;
  }

  /** "SimpleClassName: message" of the unwrapped exception. */
  static String describe(Throwable e) {
    Throwable t = unwrap(e);
    return t.getClass().getSimpleName() + ": " + t.getMessage();
  }

  /** Simple class name of the unwrapped exception, for asserting on the kind of error. */
  static String kind(Throwable e) {
    return unwrap(e).getClass().getSimpleName();
  }
}
