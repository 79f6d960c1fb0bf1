/**
 * Starts real VS Code (code-server, installed by scripts/code-server.sh outside the repo) with the
 * packaged extension installed, on loopback, with throwaway user data and a workspace folder.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO = resolve(__dirname, '../../..');

export interface CodeServer {
  url: string;
  workspace: string;
  userDir: string;
  stop(): void;
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? res(addr.port) : rej(new Error('no port'))));
    });
  });
}

/** Installs code-server and chromium if missing; returns the code-server launcher. */
export function ensureCodeServer(): string {
  const out = execFileSync('bash', [join(REPO, 'scripts/code-server.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return out.trim().split('\n').pop() ?? '';
}

/** Packages the extension exactly as a publisher would (plain `vsce package`; vscode:prepublish bundles); returns the .vsix path. */
export function packageExtension(): string {
  const vsix = join(REPO, '.cache', 'informer-inspector-e2e.vsix');
  mkdirSync(join(REPO, '.cache'), { recursive: true });
  execFileSync('npx', ['@vscode/vsce', 'package', '-o', vsix], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
  return vsix;
}

/** Packages the Kubernetes extension stand-in (test/e2e/vscode/k8s-stand-in, a fixture: no repository, no license file); returns the .vsix path. */
export function packageKubernetesStandIn(): string {
  const vsix = join(REPO, '.cache', 'k8s-stand-in.vsix');
  mkdirSync(join(REPO, '.cache'), { recursive: true });
  execFileSync(join(REPO, 'node_modules', '.bin', 'vsce'), ['package', '--allow-missing-repository', '--skip-license', '-o', vsix], {
    cwd: join(REPO, 'test/e2e/vscode/k8s-stand-in'),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return vsix;
}

/**
 * `kubeconfig`: the KUBECONFIG code-server (and so the extension) sees; default: a file that does not exist.
 * `autostart`: INFORMER_INSPECTOR_AUTOSTART for the extension (what `npm start` sets); default: none.
 */
export async function startCodeServer(
  launcher: string,
  vsix: string,
  theme: string,
  kubeconfig?: string,
  autostart?: string,
  extra: { vsix?: string[]; env?: Record<string, string> } = {},
): Promise<CodeServer> {
  const root = mkdtempSync(join(tmpdir(), 'informer-inspector-e2e-'));
  const userDir = join(root, 'user');
  const extDir = join(root, 'extensions');
  const workspace = join(root, 'workspace');
  mkdirSync(join(userDir, 'User'), { recursive: true });
  mkdirSync(workspace, { recursive: true });
  // What `npm start` does too: the extension activates on this marker (workspaceContains), then reads the variable.
  if (autostart) writeFileSync(join(workspace, '.informer-inspector-autostart'), '');
  writeSettings(userDir, theme);
  for (const v of [vsix, ...(extra.vsix ?? [])]) {
    execFileSync(launcher, ['--install-extension', v, '--extensions-dir', extDir, '--user-data-dir', userDir], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: kubeconfig ?? join(root, 'no-kubeconfig') };
  if (autostart) env.INFORMER_INSPECTOR_AUTOSTART = autostart;
  else delete env.INFORMER_INSPECTOR_AUTOSTART;
  Object.assign(env, extra.env ?? {});
  const child: ChildProcess = spawn(
    launcher,
    [
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--user-data-dir', userDir,
      '--extensions-dir', extDir,
      '--disable-telemetry',
      '--disable-workspace-trust',
      '--disable-update-check',
      workspace,
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'], detached: false },
  );
  let log = '';
  child.stdout?.on('data', (d) => (log += String(d)));
  child.stderr?.on('data', (d) => (log += String(d)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`code-server exited: ${log}`);
    if (Date.now() > deadline) throw new Error(`code-server did not start in 60 s: ${log}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    url: `${url}/?folder=${encodeURIComponent(workspace)}`,
    workspace,
    userDir,
    stop: () => {
      child.kill('SIGTERM');
    },
  };
}

export function writeSettings(userDir: string, theme: string): void {
  const settings = {
    'workbench.colorTheme': theme,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'security.workspace.trust.enabled': false,
    'extensions.ignoreRecommendations': true,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'window.dialogStyle': 'custom',
    'files.simpleDialog.enable': true,
  };
  writeFileSync(join(userDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
}
