/**
 * The diffs a view asked the host for: a snapshot's columns carry no diffs, so the details of an
 * update ask once per event (EventDiffRequest) and keep the answer until the next snapshot of
 * that session. One per view; the compare view keeps the diffs of all its sessions apart by id.
 */
import type { FieldChange } from '../../src/format/events';
import type { IpcMessage } from '../../src/protocol/ipc';
import { EventDiffRequest, type EventRef } from '../../src/protocol/timeline';

export class DiffFetch {
  /** Requests in flight: request id → the event asked about. */
  private readonly asked = new Map<number, EventRef>();
  /** Answers by session id, then seq (undefined: the host has no diff for it). */
  private readonly answers = new Map<string, Map<number, FieldChange[] | undefined>>();
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly post: (msg: IpcMessage) => void,
    private readonly nextId: () => number,
  ) {}

  /** The diff if the host answered (`{ diff }`, diff possibly undefined); otherwise asks once and returns undefined. */
  get(sessionId: string, seq: number): { diff: FieldChange[] | undefined } | undefined {
    const known = this.answers.get(sessionId);
    if (known?.has(seq)) return { diff: known.get(seq) };
    const ref = `${sessionId}\u0000${seq}`;
    if (this.inFlight.has(ref)) return undefined;
    this.inFlight.add(ref);
    const id = this.nextId();
    this.asked.set(id, { sessionId, seq });
    this.post(EventDiffRequest.create({ sessionId, seq }, id));
    return undefined;
  }

  /** The host's answer to request `id`: the event it was for (undefined for an unknown or forgotten request). */
  answered(id: number, diff: FieldChange[] | undefined): EventRef | undefined {
    const ref = this.asked.get(id);
    if (!ref) return undefined;
    this.asked.delete(id);
    this.inFlight.delete(`${ref.sessionId}\u0000${ref.seq}`);
    let known = this.answers.get(ref.sessionId);
    if (!known) this.answers.set(ref.sessionId, (known = new Map()));
    known.set(ref.seq, diff);
    return ref;
  }

  /** A new snapshot of the session: its answers and open requests no longer apply. */
  forget(sessionId: string): void {
    this.answers.delete(sessionId);
    for (const [id, ref] of this.asked) {
      if (ref.sessionId !== sessionId) continue;
      this.asked.delete(id);
      this.inFlight.delete(`${ref.sessionId}\u0000${ref.seq}`);
    }
  }
}
