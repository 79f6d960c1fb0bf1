/**
 * Status values that client-go builds on the client side rather than receiving from a server.
 */
import type { Status } from './listWatch';

/**
 * What client-go's StreamWatcher sends when a watch frame cannot be decoded (spec §1.9): the
 * ClientWatchDecoding error reporter's Status, i.e. apierrors.NewGenericServerResponse(500, …)
 * (reason InternalError, the server message quoted with Go's %q, one UnexpectedServerResponse
 * cause) plus a ClientWatchDecoding cause. Causes carry their type in both `type` and `reason`,
 * as the Status values decoded from the wire do.
 */
export function watchDecodeErrorStatus(decoderMessage: string): Status {
  const inner = `unable to decode an event from the watch stream: ${decoderMessage}`;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: 500,
    reason: 'InternalError',
    // JSON string escaping is Go's %q for printable text.
    message: `an error on the server (${JSON.stringify(inner)}) has prevented the request from succeeding`,
    details: {
      causes: [
        { type: 'UnexpectedServerResponse', reason: 'UnexpectedServerResponse', message: inner },
        { type: 'ClientWatchDecoding', reason: 'ClientWatchDecoding', message: inner },
      ],
    },
  };
}
