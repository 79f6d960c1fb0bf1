// The probe's webview: answers each message once it holds its bytes.
const api = acquireVsCodeApi();
window.addEventListener('message', async (ev) => {
  const got = Date.now();
  const m = ev.data;
  if (m.fetch) {
    const r = await fetch(m.fetch);
    const buf = await r.arrayBuffer();
    api.postMessage({ received: Date.now(), bytes: buf.byteLength, status: r.status });
    return;
  }
  let bytes = 0;
  for (const b of m.buffers) bytes += b.byteLength;
  api.postMessage({ received: got, bytes, isArrayBuffer: m.buffers[0] instanceof ArrayBuffer });
});
api.postMessage({ ready: true });
