/**
 * The "Informer Inspector" log channel: the engine's 'log' events as client-go would print them
 * (message, then key=value pairs), at the matching level; klog -v levels map to debug/trace.
 */
import * as vscode from 'vscode';
import type { RecordedEvent } from '../format/events';
import type { InformerSession } from '../app/session';

export function formatLogLine(e: Extract<RecordedEvent, { type: 'log' }>): string {
  const kv = e.kv ? Object.entries(e.kv).map(([k, v]) => ` ${k}=${/\s/.test(v) ? JSON.stringify(v) : v}`).join('') : '';
  return `${e.msg}${kv}`;
}

export function attachLog(channel: vscode.LogOutputChannel, session: InformerSession): () => void {
  const prefix = `[${session.title}] `;
  return session.subscribe((batch) => {
    for (const e of batch) {
      if (e.type !== 'log') continue;
      const line = prefix + formatLogLine(e);
      if (e.level === 'error') channel.error(line);
      else if (e.level === 'warning') channel.warn(line);
      else if (e.level === 'info') channel.info(line);
      else if (e.level === 'v1' || e.level === 'v2') channel.debug(line);
      else channel.trace(line);
    }
  });
}
