/**
 * The binary companion of a trace file (docs/trace-format.md, "The binary companion"): beside
 * `NAME.informer-trace.json` the extension writes `NAME.informer-trace.bin`, which holds what
 * opening the trace needs (its events as columns, the summary, the findings, where each event's
 * line starts in the JSON) so that an open reads it instead of parsing the JSON. The JSON stays
 * the trace; the companion is a cache of it, trusted only while the JSON's fingerprint (size,
 * modification time, SHA-1 of its first and last 64 KiB) is the one it was written for.
 *
 * Layout, little-endian:
 *   0   8 bytes  magic "IITRACE\0"
 *   8   uint32   version (COMPANION_VERSION)
 *   12  uint32   byte length M of the meta JSON
 *   16  float64  the JSON's size in bytes
 *   24  float64  the JSON's mtime (ms since the epoch)
 *   32  20 bytes SHA-1 of the JSON's first 64 KiB
 *   52  20 bytes SHA-1 of the JSON's last 64 KiB
 *   72  20 bytes SHA-1 of the content: the meta JSON's bytes, then each section's bytes in order
 *   92  M bytes  meta JSON (UTF-8): { meta: unknown, sections: [{ name, offset, length }] }
 *   then the sections' bytes, each starting at a multiple of 8.
 * A companion whose content does not hash to what it says (garbled, cut short) is not used.
 * This module reads and writes that container; what the meta and sections mean is up to the
 * caller (src/app/traceColumns.ts).
 */
import { createHash } from 'node:crypto';
import { endianness } from 'node:os';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { FileHandle } from 'node:fs/promises';

export const COMPANION_VERSION = 1;
const MAGIC = Buffer.from('IITRACE\0', 'latin1');
const FIXED = 92;
const EDGE = 64 * 1024;
/** A companion's meta larger than this is taken as corrupt. */
const MAX_META = 64 * 1024 * 1024;

/** The companion's path for a trace file's path. */
export function companionPath(jsonPath: string): string {
  return jsonPath.endsWith('.informer-trace.json') ? `${jsonPath.slice(0, -'.json'.length)}.bin` : `${jsonPath}.informer-trace.bin`;
}

/**
 * Where a companion that the extension writes for itself (an open of a trace without one) goes:
 * a file in its own storage `dir`, named after the trace's absolute path, never a new file beside
 * the user's trace. Its fingerprint says whether it still belongs to the file.
 */
export function cachedCompanionPath(dir: string, jsonPath: string): string {
  return join(dir, `${createHash('sha1').update(resolve(jsonPath)).digest('hex').slice(0, 20)}.informer-trace.bin`);
}

/** The companions a cache keeps: the most recently written. */
export const CACHED_COMPANIONS = 4;

/** Makes the cache folder. */
export async function prepareCompanionCache(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}

/** Removes all but the cache's `keep` newest companions (housekeeping: problems are ignored). */
export async function pruneCompanionCache(dir: string, keep = CACHED_COMPANIONS): Promise<void> {
  try {
    const names = (await readdir(dir)).filter((n) => n.endsWith('.informer-trace.bin'));
    const dated = await Promise.all(names.map(async (n) => ({ n, t: (await stat(join(dir, n)).catch(() => undefined))?.mtimeMs ?? 0 })));
    dated.sort((a, b) => b.t - a.t);
    await Promise.all(dated.slice(keep).map((d) => rm(join(dir, d.n), { force: true })));
  } catch {
    // the cache is only a cache
  }
}

export interface Fingerprint {
  size: number;
  mtimeMs: number;
  head: Buffer;
  tail: Buffer;
}

async function edgeHash(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const { bytesRead } = await fh.read(buf, read, length - read, position + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return createHash('sha1').update(buf.subarray(0, read)).digest();
}

/** The fingerprint of the file now. */
export async function fingerprintOf(path: string): Promise<Fingerprint> {
  const fh = await open(path, 'r');
  try {
    const st = await fh.stat();
    const n = Math.min(EDGE, st.size);
    return { size: st.size, mtimeMs: st.mtimeMs, head: await edgeHash(fh, 0, n), tail: await edgeHash(fh, st.size - n, n) };
  } finally {
    await fh.close();
  }
}

export function sameFingerprint(a: Fingerprint, b: Fingerprint): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.head.equals(b.head) && a.tail.equals(b.tail);
}

export interface CompanionContent {
  meta: unknown;
  sections: { name: string; data: ArrayBufferView }[];
}

function fixedPart(fp: Fingerprint, metaLength: number, contentHash: Buffer): Buffer {
  const b = Buffer.alloc(FIXED);
  MAGIC.copy(b, 0);
  b.writeUInt32LE(COMPANION_VERSION, 8);
  b.writeUInt32LE(metaLength, 12);
  b.writeDoubleLE(fp.size, 16);
  b.writeDoubleLE(fp.mtimeMs, 24);
  fp.head.copy(b, 32);
  fp.tail.copy(b, 52);
  contentHash.copy(b, 72);
  return b;
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

/**
 * Writes the companion of the trace file at `jsonPath` (which must be complete: its fingerprint
 * is taken now). Written to a temporary name and renamed, so a reader never sees half of it.
 * Nothing is written on a big-endian machine (the columns are stored little-endian as they are).
 */
export async function writeCompanion(jsonPath: string, content: CompanionContent, target = companionPath(jsonPath)): Promise<string | undefined> {
  if (endianness() !== 'LE') return undefined;
  const fp = await fingerprintOf(jsonPath);
  // Offsets depend on the meta's length, which depends on the offsets: place the sections after
  // a meta measured with generous offsets, then pad the meta to that length.
  const lengths = content.sections.map((s) => s.data.byteLength);
  const draft = (base: number) => {
    let at = base;
    const sections = content.sections.map((s, i) => {
      const entry = { name: s.name, offset: at, length: lengths[i] };
      at = align8(at + lengths[i]);
      return entry;
    });
    return Buffer.from(JSON.stringify({ meta: content.meta, sections }), 'utf8');
  };
  const probe = draft(Number.MAX_SAFE_INTEGER / 2).length;
  const base = align8(FIXED + probe + 16);
  const metaText = draft(base);
  const meta = Buffer.concat([metaText, Buffer.alloc(base - FIXED - metaText.length, 0x20)]);
  const temp = `${target}.${process.pid}.tmp`;
  const hash = createHash('sha1').update(meta);
  const fh = await open(temp, 'w');
  try {
    await fh.write(meta, 0, meta.length, FIXED);
    let at = base;
    for (const s of content.sections) {
      const bytes = new Uint8Array(s.data.buffer, s.data.byteOffset, s.data.byteLength);
      hash.update(bytes);
      if (bytes.length > 0) await fh.write(bytes, 0, bytes.length, at);
      at = align8(at + bytes.length);
    }
    await fh.truncate(at);
    await fh.write(fixedPart(fp, meta.length, hash.digest()), 0, FIXED, 0);
  } catch (e) {
    await fh.close();
    await rm(temp, { force: true });
    throw e;
  }
  await fh.close();
  await rename(temp, target);
  return target;
}

/**
 * Copies a companion to belong to another copy of the same trace text (an export that copied
 * the JSON): the same content with the fingerprint of `toJson`.
 */
export async function copyCompanion(fromCompanion: string, toJson: string): Promise<void> {
  const fp = await fingerprintOf(toJson);
  const src = await open(fromCompanion, 'r');
  const target = companionPath(toJson);
  const temp = `${target}.${process.pid}.tmp`;
  try {
    const dst = await open(temp, 'w');
    try {
      const head = Buffer.alloc(FIXED);
      await src.read(head, 0, FIXED, 0);
      await dst.write(fixedPart(fp, head.readUInt32LE(12), head.subarray(72, 92)), 0, FIXED, 0);
      const buf = Buffer.alloc(1 << 22);
      for (let at = FIXED; ; ) {
        const { bytesRead } = await src.read(buf, 0, buf.length, at);
        if (bytesRead === 0) break;
        await dst.write(buf, 0, bytesRead, at);
        at += bytesRead;
      }
    } finally {
      await dst.close();
    }
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  } finally {
    await src.close();
  }
  await rename(temp, target);
}

export interface ReadCompanion {
  path: string;
  /** The trace file's fingerprint it was written for (the file's now). */
  fingerprint: Fingerprint;
  meta: unknown;
  /** Each section's bytes in an ArrayBuffer of its own. */
  sections: Map<string, ArrayBuffer>;
}

/**
 * The companion of the trace file at `jsonPath` when there is one that belongs to the file as it
 * is now: `{ ok: false, reason }` when there is none (reason undefined) or it does not match or
 * cannot be read (the reason, one line, for the log). Never throws.
 */
export async function readCompanion(jsonPath: string, path = companionPath(jsonPath)): Promise<{ ok: true; companion: ReadCompanion } | { ok: false; reason?: string }> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch {
    return { ok: false };
  }
  try {
    if (endianness() !== 'LE') return { ok: false, reason: 'this machine is big-endian' };
    const size = (await fh.stat()).size;
    const head = Buffer.alloc(FIXED);
    if (size < FIXED || (await fh.read(head, 0, FIXED, 0)).bytesRead !== FIXED || !head.subarray(0, 8).equals(MAGIC)) {
      return { ok: false, reason: 'not a companion file' };
    }
    const version = head.readUInt32LE(8);
    if (version !== COMPANION_VERSION) return { ok: false, reason: `companion version ${version}, this version of the tool reads ${COMPANION_VERSION}` };
    const stored: Fingerprint = { size: head.readDoubleLE(16), mtimeMs: head.readDoubleLE(24), head: head.subarray(32, 52), tail: head.subarray(52, 72) };
    const now = await fingerprintOf(jsonPath);
    if (!sameFingerprint(stored, now)) return { ok: false, reason: 'it was written for another version of the trace file (size, time or content differ)' };
    const metaLength = head.readUInt32LE(12);
    if (metaLength > MAX_META || FIXED + metaLength > size) return { ok: false, reason: 'its table of contents is cut short' };
    const metaBuf = Buffer.alloc(metaLength);
    await fh.read(metaBuf, 0, metaLength, FIXED);
    const hash = createHash('sha1').update(metaBuf);
    const parsed = JSON.parse(metaBuf.toString('utf8')) as { meta?: unknown; sections?: unknown };
    if (!Array.isArray(parsed.sections)) return { ok: false, reason: 'its table of contents has no sections' };
    const sections = new Map<string, ArrayBuffer>();
    for (const s of parsed.sections as unknown[]) {
      const { name, offset, length } = (s ?? {}) as { name?: unknown; offset?: unknown; length?: unknown };
      const fits = typeof name === 'string' && Number.isSafeInteger(offset) && Number.isSafeInteger(length);
      if (!fits || (offset as number) < FIXED + metaLength || (length as number) < 0 || (offset as number) + (length as number) > size) {
        return { ok: false, reason: 'a section lies outside the file' };
      }
      const buf = new ArrayBuffer(length as number);
      const view = new Uint8Array(buf);
      let read = 0;
      while (read < view.length) {
        const { bytesRead } = await fh.read(view, read, view.length - read, (offset as number) + read);
        if (bytesRead === 0) return { ok: false, reason: 'the file is cut short' };
        read += bytesRead;
      }
      hash.update(view);
      sections.set(name as string, buf);
    }
    if (!hash.digest().equals(head.subarray(72, 92))) return { ok: false, reason: 'its content is damaged (checksum mismatch)' };
    return { ok: true, companion: { path, fingerprint: now, meta: parsed.meta, sections } };
  } catch (e) {
    return { ok: false, reason: `it cannot be read (${(e as Error).message.split('\n')[0]})` };
  } finally {
    await fh.close();
  }
}

/** Removes the companion of a trace file, if any (a trace written without one must not keep an old one). */
export async function removeCompanion(jsonPath: string): Promise<void> {
  await rm(companionPath(jsonPath), { force: true });
}
