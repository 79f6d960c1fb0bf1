/**
 * The rows of the reflector decision table: every way a list or a watch ends, numbered as in
 * docs/reflector-decisions.md (which follows the client-go behaviour spec, §1.10). The number is
 * what the trace carries in `watch.end.row` and `relist.row`; code names the row by what it is.
 */

/** Ways a watch (plain or watch-list) ends. */
export const WatchEnd = {
  /** The server closed the stream at timeoutSeconds (clean EOF after the requested timeout). */
  ServerTimeoutClose: 1,
  /** A clean io.EOF before the requested timeout. */
  MidStreamEOF: 2,
  /** io.ErrUnexpectedEOF while decoding an event. */
  UnexpectedEOF: 3,
  /** Connection reset, GOAWAY, closed connection or a client-side timeout mid-stream. */
  ResetOrClientTimeout: 4,
  /** Rows 1–4 within 1 s of the watch start with no accepted event. */
  VeryShortWatch: 5,
  /** Connection refused when opening the watch. */
  RefusedOnOpen: 6,
  /** The REST client gave up retrying a probable-EOF/timeout on open: an empty, closed watcher. */
  OpenRetriesExhausted: 8,
  /** 410 Expired/Gone as an ERROR event. */
  ExpiredEvent: 9,
  /** 410 Expired/Gone as the HTTP status of the watch request. */
  ExpiredStatus: 10,
  /** TooLargeResourceVersion on a watch-list request. */
  WatchListTooLargeRV: 12,
  /** TooLarge or any 504 Timeout as an ERROR event. */
  TimeoutEvent: 13,
  /** 429 when opening the watch. */
  TooManyRequestsOnOpen: 14,
  /** 429 as an ERROR event. */
  TooManyRequestsEvent: 15,
  /** 500 InternalError as an ERROR event (includes client-side decode errors). */
  InternalErrorEvent: 17,
  /** Any other non-retriable status (or error) when opening the watch. */
  OpenFailed: 18,
  /** Any other ERROR event carrying a Status. */
  OtherErrorEvent: 19,
  /** An ERROR event whose object is not a Status. */
  UnexpectedObjectEvent: 20,
  /** store.Resync() failed; the error arrives through the resync error channel. */
  ResyncError: 23,
  /** The reflector's context was cancelled (informer stopped). */
  Stopped: 24,
  /** Watch-list: the stream closed cleanly without the initial-events-end bookmark. */
  WatchListWithoutBookmark: 26,
  /** Watch-list: any other error; the reflector falls back to a LIST. */
  WatchListFallback: 27,
} as const;
export type WatchEnd = (typeof WatchEnd)[keyof typeof WatchEnd];

/** Ways a list ends other than success. */
export const ListEnd = {
  /** Connection refused or any other error on LIST. */
  Failed: 7,
  /** TooLargeResourceVersion on LIST: retried at once as a consistent read inside the same list(). */
  TooLargeRV: 11,
  /** 429 on LIST, after the REST client's own retries. */
  TooManyRequests: 16,
  /** The list arrived but could not be understood or synced into the store. */
  SyncFailed: 25,
} as const;
export type ListEnd = (typeof ListEnd)[keyof typeof ListEnd];

/** Any row of the decision table. */
export type DecisionRow = WatchEnd | ListEnd;

/** The row a 'relist' event carries when nothing recorded why the previous cycle ended. */
export const NO_RECORDED_ENDING = 0;
