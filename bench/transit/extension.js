// A bench fixture (bench/webviewTransit.ts), not part of the extension. One webview; per case the
// host waits for the bench's go file, then either posts a message carrying ArrayBuffers or asks
// the webview to fetch a file as a webview resource; the webview answers when it holds the bytes.
// Each case's timings (host clock = webview clock, one machine) go to the done file.
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(file, ms) {
  const deadline = Date.now() + ms;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`no ${file} in ${ms} ms`);
    await sleep(10);
  }
}

function payload(c, dataFile) {
  const total = c.mb * 1e6;
  let bytes;
  if (c.kind === 'zeros') bytes = new Uint8Array(total);
  else if (c.kind === 'random') bytes = new Uint8Array(require('crypto').randomBytes(total));
  else bytes = new Uint8Array(fs.readFileSync(dataFile)).subarray(0, total);
  const per = Math.floor(bytes.length / c.buffers);
  const out = [];
  for (let i = 0; i < c.buffers; i++) out.push(bytes.slice(i * per, i === c.buffers - 1 ? bytes.length : (i + 1) * per).buffer);
  return out;
}

exports.activate = (context) => {
  context.subscriptions.push(
    vscode.commands.registerCommand('transitProbe.run', async () => {
      const dir = process.env.TRANSIT_DIR;
      const cases = JSON.parse(fs.readFileSync(path.join(dir, 'cases.json'), 'utf8'));
      const dataFile = path.join(dir, 'data.bin');
      const panel = vscode.window.createWebviewPanel('transitProbe', 'Transit probe', vscode.ViewColumn.One, {
        enableScripts: true,
        localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'media'), vscode.Uri.file(dir)],
      });
      const w = panel.webview;
      let answer;
      w.onDidReceiveMessage((m) => answer && answer(m));
      const next = () => new Promise((r) => (answer = r));
      const script = w.asWebviewUri(vscode.Uri.joinPath(context.extensionUri, 'media', 'probe.js'));
      const ready = next();
      w.html = `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; connect-src ${w.cspSource}; script-src ${w.cspSource}"></head><body><p id="s">probe</p><script src="${script}"></script></body></html>`;
      await ready;
      for (let i = 0; i < cases.length; i++) {
        const c = cases[i];
        await waitFor(path.join(dir, `go-${i}`), 600000);
        const cpu0 = process.cpuUsage();
        const done = next();
        const t0 = Date.now();
        let resolvedAt;
        if (c.kind === 'fetch') {
          void w.postMessage({ fetch: w.asWebviewUri(vscode.Uri.file(path.join(dir, c.file))).toString(), t0 });
        } else {
          const buffers = payload(c, dataFile);
          const tBuilt = Date.now();
          void w.postMessage({ buffers, t0 }).then(() => (resolvedAt = Date.now()));
          c.buildMs = tBuilt - t0;
        }
        const m = await done;
        const t1 = Date.now();
        const cpu = process.cpuUsage(cpu0);
        await sleep(50);
        fs.writeFileSync(path.join(dir, `done-${i}`), JSON.stringify({ ...c, ...m, t0, t1, resolvedAt, hostCpuMs: (cpu.user + cpu.system) / 1000 }));
      }
    }),
  );
};
