/**
 * The two ways a use case fails, whatever front-end runs it. The message is one line (or one
 * line per problem) fit to show as is; the CLI exits 2 for bad input and 1 for a failed run, the
 * extension shows either as an error message.
 */

/** The user's input is wrong: an unknown profile or resource, a broken kubeconfig, a bad scenario or trace file. */
export class BadInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadInputError';
  }
}

/** The run failed for a reason outside the tool: the server cannot be reached, discovery is refused, no sync in time. */
export class RunError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunError';
  }
}

/** The first line of an error's message (or of the value thrown): what a one-line message shows. */
export function firstLine(e: unknown): string {
  return String(e instanceof Error ? e.message : e).split('\n')[0];
}
